#!/usr/bin/env bash
# make fuzz: runs every native fuzz target (func FuzzXxx in a _test.go file:
# the targets of fuzz/ and any other package's) for FUZZTIME each (10s), one
# after another: go test -fuzz takes one target of one package at a time.
#
#   scripts/fuzz.sh            run them all
#   scripts/fuzz.sh --list     print "PACKAGE TARGET" lines, run nothing
#   FUZZTARGETS='Filters|Weighers' scripts/fuzz.sh   only the matching ones
#   FUZZPARALLEL=1 (default)   fuzzing workers per target (-parallel); the
#                              machine is shared, raise it on your own
#   FUZZCACHE=DIR              the fuzz cache (default: go's, GOCACHE/fuzz); a
#                              short FUZZTIME over a big cache can end with
#                              "context deadline exceeded" before fuzzing
#
# A failure stops the run; go test has written the failing input to
# PACKAGE/testdata/fuzz/TARGET/ (see README.md, "Fuzzing").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-10s}
parallel=${FUZZPARALLEL:-1}
only=${FUZZTARGETS:-}

targets() {
  grep -rl --include='*_test.go' --exclude-dir=testdata --exclude-dir=.git --exclude-dir=.work '^func Fuzz' . |
    sed 's|^\./||' | sort |
    while IFS= read -r file; do
      sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" |
        while IFS= read -r target; do echo "./$(dirname "$file") $target"; done
    done
}

list=$(targets)
if [ -n "$only" ]; then
  list=$(echo "$list" | grep -E "Fuzz($only)\$" || true)
fi
if [ "${1:-}" = --list ]; then
  [ -z "$list" ] || echo "$list"
  exit 0
fi
if [ -z "$list" ]; then
  echo "fuzz: no fuzz targets"
  exit 0
fi
cacheargs=()
if [ -n "${FUZZCACHE:-}" ]; then
  cacheargs=(-args -test.fuzzcachedir="$FUZZCACHE")
fi
while read -r pkg target; do
  echo "fuzz: $pkg $target ($fuzztime, -parallel $parallel)"
  go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -parallel "$parallel" "$pkg" "${cacheargs[@]}"
done <<<"$list"

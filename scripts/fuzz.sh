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
#   FUZZMINIMIZE=2s (default)  -fuzzminimizetime: how long a worker may
#                              shrink an input that found new coverage, and
#                              a failing input before it is written. With
#                              Go's own 60s the slow targets (FuzzFilters,
#                              FuzzCommit, FuzzPlaceBatch) spent most of a
#                              minute shrinking and ran few new inputs
#                              (BENCHMARKS.md, session 33); set 60s when
#                              hunting a failure, for a smaller input
#   FUZZCACHE=DIR              the fuzz cache (default: go's, GOCACHE/fuzz); a
#                              short FUZZTIME over a big cache can end with
#                              "context deadline exceeded" before fuzzing
#
# A failure stops the run; go test has written the failing input to
# PACKAGE/testdata/fuzz/TARGET/ (see docs/testing.md, "Fuzzing"). Go 1.26's
# end-of-fuzztime race (below) is reported and skipped.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-10s}
parallel=${FUZZPARALLEL:-1}
minimize=${FUZZMINIMIZE:-2s}
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
  if [ -n "$only" ]; then
    # A typo here ran nothing and passed.
    echo "fuzz: FUZZTARGETS='$only' names no target (names without the Fuzz prefix, | between them: FUZZTARGETS='Filters|Weighers'; scripts/fuzz.sh --list)" >&2
    exit 2
  fi
  echo "fuzz: no fuzz targets"
  exit 0
fi
cacheargs=()
if [ -n "${FUZZCACHE:-}" ]; then
  cacheargs=(-args -test.fuzzcachedir="$FUZZCACHE")
fi
# Go 1.26's fuzz coordinator can fail a target with a bare "context
# deadline exceeded" as -fuzztime ends (golang/go#75804, fixed in Go 1.27):
# no input is written then. A failure counts only when go test fails
# otherwise, or writes a new input to PACKAGE/testdata/fuzz/TARGET/.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while read -r pkg target; do
  echo "fuzz: $pkg $target ($fuzztime, -parallel $parallel, -fuzzminimizetime $minimize)"
  corpus="$pkg/testdata/fuzz/$target"
  before=$(ls "$corpus" 2>/dev/null | sort || true)
  if go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel "$parallel" "$pkg" "${cacheargs[@]}" 2>&1 | tee "$log"; then
    continue
  fi
  after=$(ls "$corpus" 2>/dev/null | sort || true)
  if [ "$before" = "$after" ] && grep -q '^    context deadline exceeded$' "$log" && [ "$(grep -c -- '--- FAIL' "$log")" = 1 ]; then
    echo "fuzz: $target: \"context deadline exceeded\" with no input written: Go's fuzz coordinator race (golang/go#75804), not a finding"
    continue
  fi
  exit 1
done <<<"$list"

#!/usr/bin/env bash
# make fuzz: runs every native fuzz target (func FuzzXxx in a _test.go file)
# for FUZZTIME each (10s), one after another. go test -fuzz takes one target
# of one package at a time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-10s}
found=0
while IFS= read -r file; do
  pkg=./$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    found=$((found + 1))
    echo "fuzz: $pkg $target ($fuzztime)"
    go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg"
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sed 's|^\./||' | sort)
if [ "$found" = 0 ]; then
  echo "fuzz: no fuzz targets yet"
fi

#!/usr/bin/env bash
# scripts/pair.sh REV: a paired A/B of one bench/ case between commit REV
# and the working tree. Each round runs REV's binary and the working
# tree's at the same time, each alone on one CPU (taskset, -test.cpu 1),
# swapping the CPUs from one round to the next, and prints both figures
# and their ratio (new / old); then the median ratio. Two runs at once
# share whatever state the machine is in (these shared machines have slow
# and fast spells that move one case 10-40% between runs), so the ratio
# of a pair is steadier than that of two runs one after the other: on
# one binary against itself, pairs read 0.94-1.07. Needs two CPUs.
#
# Environment:
#   PAIR_BENCH   -bench pattern (the realistic Scheduler stream, 8 workers)
#   PAIR_TIME    -benchtime (12000x)
#   PAIR_METRIC  the unit of the figure compared (placements/s; ns/op for
#                cases without one: the ratio is then old / new, so that
#                above 1 is faster too)
#   ROUNDS       rounds (6)
#   BUILD        default or simd (default); the simd build takes the
#                assembly kernels unless PLACER_KERNELS=simd is set (the
#                environment reaches both binaries)
#   PAIR_OUT     the binaries' directory (.work/pair)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/benchbin.sh
rev=${1:?usage: scripts/pair.sh REV}
bench=${PAIR_BENCH:-'^BenchmarkScheduler$/stream=realistic/hosts=50000/workers=8$'}
benchtime=${PAIR_TIME:-12000x}
metric=${PAIR_METRIC:-placements/s}
rounds=${ROUNDS:-6}
build=${BUILD:-default}
dir=${PAIR_OUT:-.work/pair}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ "$(nproc)" -lt 2 ]; then
  echo "pair: needs two CPUs" >&2
  exit 2
fi

old_worktree "$rev"
build_bench pair "$build" "$wt" "$dir/old.test"
build_bench pair "$build" . "$dir/new.test"

# figure BINARY CPU OUT: one run of the case on one CPU, its figure to OUT.
figure() {
  (cd bench && taskset -c "$2" "$1" -test.cpu 1 -test.run '^$' -test.bench "$bench" -test.benchtime "$benchtime") |
    awk -v m="$metric" '/^Benchmark/ { for (i = 2; i <= NF; i++) if ($i == m) f = $(i-1) } END { print f }' >"$3"
}

echo "# pair $(git rev-parse --short "$rev") against $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes'), build $build, $bench, $metric; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) avx512f=$(grep -q avx512f /proc/cpuinfo && echo yes || echo no)"
ratios=()
for r in $(seq "$rounds"); do
  a=$((r % 2))
  figure "$dir/old.test" "$a" "$dir/old.out" &
  figure "$dir/new.test" "$((1 - a))" "$dir/new.out" &
  wait
  old=$(cat "$dir/old.out") new=$(cat "$dir/new.out")
  if [ -z "$old" ] || [ -z "$new" ]; then
    echo "pair: round $r printed no $metric" >&2
    exit 1
  fi
  ratio=$(awk -v o="$old" -v n="$new" -v m="$metric" 'BEGIN { printf "%.3f", m == "ns/op" ? o / n : n / o }')
  ratios+=("$ratio")
  echo "round $r: old $old new $new ratio $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ x[NR] = $1 } END { printf "median ratio (new vs old, above 1 is faster): %.3f\n", NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2 }'

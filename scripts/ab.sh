#!/usr/bin/env bash
# scripts/ab.sh REV: an interleaved A/B of bench/ between commit REV and
# the working tree, on the default and GOEXPERIMENT=simd builds. Builds
# the four test binaries first (REV's in a temporary worktree), then runs
# each case group on REV's binary and on HEAD's in turn, ROUNDS times, so
# that a slow spell of the machine falls on both; prints every figure per
# case and version. BENCHMARKS.md's "no regression" table is its output.
#
# Environment:
#   ROUNDS      rounds (3)
#   BUILDS      builds ("default simd")
#   AB_OUT      the raw output's directory (.work/ab)
#   AB_CASES    PlaceBatch -bench pattern (default and rich, 50,000 hosts,
#               1 and 1,000 instances), -benchtime BENCHTIME (2s)
#   AB_SCHED    Scheduler -bench pattern at HEAD (uniform, 8 workers),
#               AB_SCHED_OLD at REV (before issue 18 the case had no
#               stream= part), -benchtime SCHEDTIME (1000x)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/benchbin.sh
rev=${1:?usage: scripts/ab.sh REV}
rounds=${ROUNDS:-3}
builds=${BUILDS:-default simd}
dir=${AB_OUT:-.work/ab}
cases=${AB_CASES:-'^BenchmarkPlaceBatch$/impl=engine/filters=(default|rich)/hosts=50000$/instances=(1|1000)$'}
sched=${AB_SCHED:-'^BenchmarkScheduler$/stream=uniform/hosts=50000/workers=8$'}
schedOld=${AB_SCHED_OLD:-'^BenchmarkScheduler$/(stream=uniform/)?hosts=50000/workers=8$'}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

old_worktree "$rev"
for b in $builds; do
  build_bench ab "$b" "$wt" "$dir/old-$b.test"
  build_bench ab "$b" . "$dir/new-$b.test"
done

out=$dir/ab.txt
echo "# ab $(git rev-parse --short "$rev") against $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes') $(date -u +%FT%TZ) $(nproc) CPUs:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) avx512f=$(grep -q avx512f /proc/cpuinfo && echo yes || echo no)" >"$out"
for r in $(seq "$rounds"); do
  for b in $builds; do
    for v in old new; do
      pat=$sched
      [ "$v" = old ] && pat=$schedOld
      echo "## round=$r build=$b version=$v" >>"$out"
      (cd bench && "$dir/$v-$b.test" -test.run '^$' -test.benchmem -test.benchtime "${BENCHTIME:-2s}" -test.bench "$cases") >>"$out"
      (cd bench && "$dir/$v-$b.test" -test.run '^$' -test.benchmem -test.benchtime "${SCHEDTIME:-1000x}" -test.bench "$pat") >>"$out"
    done
  done
done

# One line per build and case: every round's figure, old then new.
awk '/^## round/ { split($3, b, "="); split($4, v, "="); build = b[2]; ver = v[2] }
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name); sub(/stream=uniform\//, "", name)
  fig = $3 " ns/op"
  for (i = 2; i < NF; i++) if ($(i+1) == "placements/s" && name ~ /Scheduler/) fig = $i " placements/s"
  key = build " " name; if (!(key in seen)) { seen[key] = 1; order[++n] = key }
  figs[key, ver] = figs[key, ver] " " fig
}
END { for (k = 1; k <= n; k++) printf "%s\n  old:%s\n  new:%s\n", order[k], figs[order[k], "old"], figs[order[k], "new"] }' "$out"

#!/usr/bin/env bash
# make bench: the headline benchmarks of BENCHMARKS.md, run side by side in
# one go, since these machines are shared and noisy: the engine beside the
# reference, the realistic request stream beside the uniform one, the rich
# filters beside the default ones, and the default build beside the
# GOEXPERIMENT=simd build on its archsimd kernels where the CPU has AVX-512
# (two test binaries, each case group run on one then the other). Prints a
# table per build and the ratios the targets are stated in
# (docs/performance.md).
#
# Environment:
#   BENCHTIME   -benchtime of the PlaceBatch cases (2s: a fixed count of a
#               few hundred gives the 150 us cases a few tens of ms, which
#               one stall of the machine moves by 10%)
#   PBCOUNT     runs of each PlaceBatch case (3): the rich x 1 case reads
#               55-60 us in most processes and 85-95 us in some (both
#               builds, old and new code alike, 2 CPUs), so the ratios take
#               each case's median over its runs
#   SCHEDTIME   the Scheduler cases' (1000x: one op is one request)
#   SCHEDCOUNT  runs of each Scheduler case, one after the other (3): a
#               case's 1,000 uniform requests are ~60 ms of work, which
#               one stall of the machine moves by 20-40%, so the ratios
#               take each case's median over its runs
#   COLDTIME    the cold and warm first-batch cases' (10x)
#   FILTERTIME  the filter pass cases' (10000x: one op is one pass of
#               ~100 us; a few hundred would let one stall move the mean)
#   CHANGETIME  the snapshot build and Store change cases' (10x: one op is
#               one build of 50,000 hosts)
#   BUILDS      the builds to run ("default simd"; "default" alone skips the
#               GOEXPERIMENT=simd binary)
#   BENCH_OUT   the raw output's directory (.work/bench): one file per build
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/benchbin.sh
benchtime=${BENCHTIME:-2s}
builds=${BUILDS:-default simd}
dir=${BENCH_OUT:-.work/bench}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The kernels each build's cases run on: the default build takes its own
# choice (AVX-512 assembly, else AVX2); the GOEXPERIMENT=simd build would
# take the same assembly unless asked, so it is asked for its archsimd
# kernels (PLACER_KERNELS=simd) where the CPU has Go's AVX-512 set, and
# compares the two vector implementations; elsewhere it runs the
# assembly too (noted in its header).
# shellcheck source=scripts/gocpu.sh
. scripts/gocpu.sh
simd_cpu=no
if go_avx512; then simd_cpu=yes; fi
kernels_of() {
  if [ "$1" = simd ] && [ "$simd_cpu" = yes ]; then echo simd; fi
}

for b in $builds; do
  build_bench bench "$b" . "$dir/$b.test"
  k=$(kernels_of "$b")
  echo "# build=$b kernels=${k:-own-choice} $(date -u +%FT%TZ) $(go version) commit $(git rev-parse --short HEAD) $(nproc) CPUs:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-) avx512f=$(grep -q avx512f /proc/cpuinfo && echo yes || echo no)" >"$dir/$b.txt"
done

# each ARGS...: one case group on every build in turn, each from bench/.
each() {
  local b k
  for b in $builds; do
    k=$(kernels_of "$b")
    echo "## build=$b kernels=${k:-own-choice}" >&2
    (cd bench && env ${k:+PLACER_KERNELS=$k} "$dir/$b.test" -test.run '^$' -test.benchmem "$@") | tee -a "$dir/$b.txt"
  done
}

each -test.bench '^BenchmarkPlaceBatch$/impl=engine/filters=(default|rich)/hosts=50000$/instances=(1|10|100|1000)$' -test.benchtime "$benchtime" -test.count "${PBCOUNT:-3}"
# The first batch of a fresh snapshot (start=cold: its scratch allocated and
# faulted in) beside a later one (start=warm); each cold op also builds a
# snapshot, untimed.
each -test.bench '^BenchmarkBatchStart$/impl=engine/filters=default/hosts=50000$/instances=100$/start=(cold|warm)$' -test.benchtime "${COLDTIME:-10x}"
each -test.bench '^BenchmarkFilterPass$/filters=default/hosts=100000/' -test.benchtime "${FILTERTIME:-10000x}"
each -test.bench 'FilterPassScaling/filters=default/hosts=100000(/verdicts=judged)?$' -test.benchtime "${FILTERTIME:-10000x}" -test.count 3
each -test.bench '^BenchmarkScheduler(ColdStart)?$/stream=(uniform|realistic)/hosts=50000/workers=(1|8)$' -test.benchtime "${SCHEDTIME:-1000x}" -test.count "${SCHEDCOUNT:-3}"
each -test.bench '^BenchmarkSnapshotMemory$' -test.benchtime 1x
first=${builds%% *}
# A Store's host and aggregate changes (snapshots derived from the one they
# replace) beside a whole NewSnapshot, on the first build only: building
# runs no kernel worth comparing.
(cd bench && "$dir/$first.test" -test.run '^$' -test.benchmem \
  -test.bench '^Benchmark(NewSnapshot|StoreChange)$' -test.benchtime "${CHANGETIME:-10x}") | tee -a "$dir/$first.txt"
# Last, the reference, one op, for the engine/reference ratio (default
# build only: it has no kernels). It allocates 1.8 GB: run before the
# filter pass, it left the second vCPU slow for the cases after it (the
# default build's FilterPassScaling 1.11x there, 1.73-1.81x alone).
(cd bench && PLACER_BENCH_REFERENCE_BUDGET=5000000 "$dir/$first.test" -test.run '^$' -test.benchmem \
  -test.bench '^BenchmarkPlaceBatch$/impl=reference/filters=default/hosts=50000$/instances=100$' -test.benchtime 1x) | tee -a "$dir/$first.txt"

for b in $builds; do
  echo
  echo "### build=$b ($(head -1 "$dir/$b.txt" | cut -d' ' -f3-))"
  echo
  echo "| benchmark | ns/op | placements/s | retries/req | bytes/host built | bytes/host placed | B/op | allocs/op |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  awk '/^Benchmark/ && !/FilterPassScaling/ {
    name=$1; ns=""; ps=""; rr=""; hb=""; hp=""; bo=""; al="";
    for (i=2; i<=NF; i++) {
      if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="placements/s") ps=$i; if ($(i+1)=="retries/req") rr=$i;
      if ($(i+1)=="bytes/host-built") hb=$i; if ($(i+1)=="bytes/host-placed") hp=$i;
      if ($(i+1)=="B/op") bo=$i; if ($(i+1)=="allocs/op") al=$i;
    }
    printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, ns, ps, rr, hb, hp, bo, al }' "$dir/$b.txt"
  echo
  echo "| filter pass, GOMAXPROCS 1 and 2 interleaved (3 runs) | mean ns/pass at 1 | at 2 | speedup | median ns/pass at 1 | at 2 | speedup-p50 |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk '/^BenchmarkFilterPassScaling/ {
    p1=""; p2=""; sp=""; m1=""; m2=""; sm="";
    for (i=2; i<=NF; i++) {
      if ($(i+1)=="ns/pass-procs=1") p1=$i; if ($(i+1)=="ns/pass-procs=2") p2=$i; if ($(i+1)=="speedup") sp=$i;
      if ($(i+1)=="p50-ns/pass-procs=1") m1=$i; if ($(i+1)=="p50-ns/pass-procs=2") m2=$i; if ($(i+1)=="speedup-p50") sm=$i;
    }
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, p1, p2, sp, m1, m2, sm }' "$dir/$b.txt"
done

# The ratios of issue 18's targets, per build, and default against simd.
# value FILE NAME-REGEX UNIT: the median figure of UNIT over the lines
# whose benchmark name matches (the -N GOMAXPROCS suffix stripped): one
# line for most cases, SCHEDCOUNT for the Scheduler's (an even count
# takes the mean of the middle two).
value() {
  awk -v re="$2" -v unit="$3" '/^Benchmark/ {
    name=$1; sub(/-[0-9]+$/, "", name)
    if (name ~ re) for (i=2; i<=NF; i++) if ($(i+1)==unit) { v[n++]=$i; break } }
    END {
      if (n == 0) exit
      for (i=1; i<n; i++) for (j=i; j>0 && v[j-1]+0 > v[j]+0; j--) { t=v[j]; v[j]=v[j-1]; v[j-1]=t }
      if (n % 2) print v[int(n/2)]; else printf "%.6g\n", (v[n/2-1]+v[n/2])/2
    }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.3f", a / b }'; }
echo
echo "| ratio (target) | $(echo "$builds" | sed 's/ / | /g') |"
echo "|---|$(for b in $builds; do printf -- '---:|'; done)"
row() {
  local label=$1 unit=$2 num=$3 den=$4 b
  local line="| $label |"
  for b in $builds; do
    line="$line $(ratio "$(value "$dir/$b.txt" "$num" "$unit")" "$(value "$dir/$b.txt" "$den" "$unit")") |"
  done
  echo "$line"
}
sched='^BenchmarkScheduler/stream=%s/hosts=50000/workers=8$'
# shellcheck disable=SC2059
row "realistic / uniform placements/s, workers=8 (>= 0.5)" placements/s "$(printf "$sched" realistic)" "$(printf "$sched" uniform)"
pb='^BenchmarkPlaceBatch/impl=engine/filters=%s/hosts=50000/instances=%s$'
# shellcheck disable=SC2059
row "rich / default ns/op, 50,000 hosts x 1 (<= 3)" ns/op "$(printf "$pb" rich 1)" "$(printf "$pb" default 1)"
echo
echo "| Store change / NewSnapshot, ns/op, 50,000 hosts ($first build) | ratio |"
echo "|---|---:|"
for c in add_host remove_host aggregate aggregate_zone; do
  echo "| change=$c | $(ratio "$(value "$dir/$first.txt" "^BenchmarkStoreChange/change=$c/hosts=50000\$" ns/op)" "$(value "$dir/$first.txt" '^BenchmarkNewSnapshot/hosts=50000$' ns/op)") |"
done
if [[ " $builds " == *" default "* && " $builds " == *" simd "* ]]; then
  echo
  echo "| default build / simd build (target <= 1.3) | ratio |"
  echo "|---|---:|"
  # shellcheck disable=SC2059
  echo "| PlaceBatch default x 1000, ns/op | $(ratio "$(value "$dir/default.txt" "$(printf "$pb" default 1000)" ns/op)" "$(value "$dir/simd.txt" "$(printf "$pb" default 1000)" ns/op)") |"
  # shellcheck disable=SC2059
  echo "| realistic stream, workers=8, placements/s (simd / default) | $(ratio "$(value "$dir/simd.txt" "$(printf "$sched" realistic)" placements/s)" "$(value "$dir/default.txt" "$(printf "$sched" realistic)" placements/s)") |"
fi

#!/usr/bin/env bash
# make bench: the headline benchmarks of BENCHMARKS.md, run side by side in
# one go (engine and reference in the same run, since these machines are
# shared and noisy), printed as a table. GOEXPERIMENT=simd turns on the
# AVX-512 kernels (internal/kernels); BENCHTIME sets -benchtime (default 2s:
# a fixed count of a few hundred gives the 150 us cases a few tens of ms,
# which one stall of the machine moves by 10%),
# SCHEDTIME the Scheduler cases' (default 1000x: one op is one request),
# COLDTIME the cold and warm first-batch cases' (default 10x),
# FILTERTIME the filter pass cases' (default 10000x: one op is one pass of
# ~100 us, and a few hundred would let one stall of the machine move the
# mean).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOEXPERIMENT=${GOEXPERIMENT-simd}
benchtime=${BENCHTIME:-2s}
out=${BENCH_OUT:-.work/bench.txt}
mkdir -p "$(dirname "$out")"

run() { go test ./bench -run '^$' -benchmem "$@" | tee -a "$out"; }
: >"$out"
echo "# $(date -u +%FT%TZ) $(go version) GOEXPERIMENT=$GOEXPERIMENT $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)" | tee -a "$out"
run -bench '^BenchmarkPlaceBatch$/impl=engine/filters=(default|rich)/hosts=50000$/instances=(1|10|100|1000)$' -benchtime "$benchtime"
# The first batch of a fresh snapshot (start=cold: its scratch allocated and
# faulted in) beside a later one (start=warm), COLDTIME ops each (default
# 10x: each cold op also builds a snapshot, untimed); then the reference,
# one op, for the engine/reference ratio.
run -bench '^BenchmarkBatchStart$/impl=engine/filters=default/hosts=50000$/instances=100$/start=(cold|warm)$' -benchtime "${COLDTIME:-10x}"
PLACER_BENCH_REFERENCE_BUDGET=5000000 run -bench '^BenchmarkPlaceBatch$/impl=reference/filters=default/hosts=50000$/instances=100$' -benchtime 1x
run -bench 'FilterPass/filters=default/hosts=100000/' -benchtime "${FILTERTIME:-10000x}"
run -bench 'FilterPassScaling/filters=default/hosts=100000$' -benchtime "${FILTERTIME:-10000x}" -count 3
run -bench 'Scheduler/hosts=50000/workers=(1|2|4|8|16)$' -benchtime "${SCHEDTIME:-1000x}"
run -bench '^BenchmarkSnapshotMemory$' -benchtime 1x

echo
echo "| benchmark | ns/op | placements/s | retries/req | bytes/host built | bytes/host placed | B/op | allocs/op |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
awk '/^Benchmark/ {
  name=$1; ns=""; ps=""; rr=""; hb=""; hp=""; bo=""; al="";
  for (i=2; i<=NF; i++) {
    if ($(i+1)=="ns/op") ns=$i; if ($(i+1)=="placements/s") ps=$i; if ($(i+1)=="retries/req") rr=$i;
    if ($(i+1)=="bytes/host-built") hb=$i; if ($(i+1)=="bytes/host-placed") hp=$i;
    if ($(i+1)=="B/op") bo=$i; if ($(i+1)=="allocs/op") al=$i;
  }
  printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, ns, ps, rr, hb, hp, bo, al }' "$out"

echo
echo "| filter pass, GOMAXPROCS 1 and 2 interleaved (3 runs) | mean ns/pass at 1 | at 2 | speedup | median ns/pass at 1 | at 2 | speedup-p50 |"
echo "|---|---:|---:|---:|---:|---:|---:|"
awk '/^BenchmarkFilterPassScaling/ {
  p1=""; p2=""; sp=""; m1=""; m2=""; sm="";
  for (i=2; i<=NF; i++) {
    if ($(i+1)=="ns/pass-procs=1") p1=$i; if ($(i+1)=="ns/pass-procs=2") p2=$i; if ($(i+1)=="speedup") sp=$i;
    if ($(i+1)=="p50-ns/pass-procs=1") m1=$i; if ($(i+1)=="p50-ns/pass-procs=2") m2=$i; if ($(i+1)=="speedup-p50") sm=$i;
  }
  printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, p1, p2, sp, m1, m2, sm }' "$out"

#!/usr/bin/env bash
# make plots: measure the data of the scaling charts into PLOTS_DATA
# (docs/plots/data) and draw them into PLOTS_OUT (docs/plots) with
# "placer plot". The data files keep the tools' output as printed, under a
# header (commit, cpuinfo, avx512f, cpus, go, date), so that "placer plot"
# draws the charts again without measuring again.
#
# hosts.txt, the time of one batch against hosts: for each host count and
# instance count, one scenario file written by
#   placer gen --profile basic --seed 1 --hosts N --instances K
# (the synthetic cloud of the benchmarks and placer simulate), placed from
# that same file by every implementation in turn:
#   engine       placer place --timing --runs PLOTS_RUNS
#   engine-simd  the same, built with GOEXPERIMENT=simd (when the CPU has
#                AVX-512F, or PLOTS_SIMD=1)
#   reference    placer place --impl reference --timing --runs
#                PLOTS_REFERENCE_RUNS, up to PLACER_BENCH_REFERENCE_BUDGET
#                hosts x instances (bench/'s variable, same default)
#   nova         oracle time FILE -n PLOTS_NOVA_RUNS: Nova's own placement
#                loop, up to PLOTS_NOVA_BUDGET hosts x instances; skipped,
#                saying so, when Nova is not installed
# Each prints the median of its runs of the placement alone (not reading
# the file, not building host states or the snapshot).
#
# scheduler.txt, placements/s against workers: go test ./bench -bench
# PLOTS_SCHEDULER -benchtime SCHEDTIME (BenchmarkScheduler and
# BenchmarkSchedulerColdStart at 1-16 workers; any benchmark the pattern
# matches whose names carry workers= joins the chart).
#
# placebatch.txt, with PLOTS_PLACEBATCH=1 only: go test ./bench -bench
# PlaceBatch for the engine and the reference, default filters, at
# PLOTS_HOSTS x PLOTS_INSTANCES (bench/ has 1k-100k hosts at 1 and 10
# instances), -benchtime PLACEBATCHTIME (1s): the same comparison on the
# benchmarks' own request, drawn as placebatch.svg. Off by default: the
# hosts chart above is the one that compares with Nova on the same files.
#
# Environment:
#   PLOTS_HOSTS           host counts (1000 2000 5000 10000 20000 50000 100000)
#   PLOTS_INSTANCES       instance counts (1)
#   PLOTS_RUNS            engine runs per point (31)
#   PLOTS_REFERENCE_RUNS  reference runs per point (5)
#   PLACER_BENCH_REFERENCE_BUDGET  largest hosts x instances for the
#                         reference (1000000: 100,000 hosts x 1 instance)
#   PLOTS_NOVA_RUNS       Nova runs per point (3)
#   PLOTS_NOVA_BUDGET     largest hosts x instances for Nova (20000: about
#                         1.5 minutes in all at the default host counts, most
#                         of it building Nova's host states, untimed)
#   PLOTS_SIMD            1 or 0: measure the GOEXPERIMENT=simd engine or not
#                         (default: 1 when /proc/cpuinfo has avx512f)
#   PLOTS_SCHEDULER       -bench pattern of the workers chart
#                         ('Scheduler(ColdStart)?/stream=(uniform|realistic)/
#                         hosts=50000/workers=(1|2|4|8|16)$');
#                         empty: keep scheduler.txt as it is
#   SCHEDTIME             -benchtime of those (1000x: one op is one request)
#   PLOTS_PLACEBATCH      1: measure placebatch.txt too (see above)
#   PLACEBATCHTIME        -benchtime of those (1s)
#   PLOTS_DATA, PLOTS_OUT the data and chart directories
#   ORACLE                the oracle (../shared/nova-oracle/oracle)
# Small, to check the script: PLOTS_HOSTS="1000 2000" SCHEDTIME=20x make plots
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

hosts_list=${PLOTS_HOSTS:-1000 2000 5000 10000 20000 50000 100000}
instances_list=${PLOTS_INSTANCES:-1}
runs=${PLOTS_RUNS:-31}
ref_runs=${PLOTS_REFERENCE_RUNS:-5}
ref_budget=${PLACER_BENCH_REFERENCE_BUDGET:-1000000}
nova_runs=${PLOTS_NOVA_RUNS:-3}
nova_budget=${PLOTS_NOVA_BUDGET:-20000}
sched=${PLOTS_SCHEDULER-Scheduler(ColdStart)?/stream=(uniform|realistic)/hosts=50000/workers=(1|2|4|8|16)\$}
schedtime=${SCHEDTIME:-1000x}
placebatch=${PLOTS_PLACEBATCH:-0}
placebatchtime=${PLACEBATCHTIME:-1s}
data=${PLOTS_DATA:-$root/docs/plots/data}
out=${PLOTS_OUT:-$root/docs/plots}
oracle=${ORACLE:-$root/../shared/nova-oracle/oracle}
work=$root/.work/plots-$$

avx=no
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then avx=yes; fi
simd=${PLOTS_SIMD:-$([ "$avx" = yes ] && echo 1 || echo 0)}

nova=yes
if [ ! -x "$oracle" ]; then
  echo "plots: no oracle at $oracle: the hosts chart goes without Nova" >&2
  nova=no
elif ! /usr/bin/python3 -c 'import nova' 2>/dev/null; then
  echo "plots: Nova is not installed (../shared/nova-oracle/install.sh): the hosts chart goes without Nova" >&2
  nova=no
fi

mkdir -p "$work" "$data"
trap 'rm -rf "$work"' EXIT
echo "plots: building placer into $work"
go build -o "$work/placer" ./cmd/placer
if [ "$simd" = 1 ]; then
  echo "plots: building placer with GOEXPERIMENT=simd (PLOTS_SIMD=0 to leave it out)"
  GOEXPERIMENT=simd go build -o "$work/placer-simd" ./cmd/placer
fi

# header: the configuration lines every data file starts with.
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD -- . ':!docs/plots' 2>/dev/null; then
  commit="$commit+uncommitted-changes"
fi
header() {
  echo "# $1 (scripts/plots.sh; placer plot draws it)"
  echo "commit: $commit"
  echo "cpuinfo: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)"
  echo "avx512f: $avx"
  echo "cpus: $(nproc)"
  echo "go: $(go version | cut -d' ' -f3-)"
  echo "date: $(date -u +%FT%TZ)"
}

# record TAGS COMMAND...: runs COMMAND in $work and, when it exits 0,
# appends "$ COMMAND  # TAGS" and its output (stderr, then stdout, as a
# terminal would show the oracle's; placer's result document is
# dropped) to hosts.txt. The command is written with the binaries' names,
# not their paths.
record() {
  local tags=$1 shown rc=0
  shift
  shown=$(printf '%s ' "$@" | sed -e "s#$work/placer-simd#placer#; s#$work/placer#placer#; s#$oracle#oracle#")
  case $1 in
    "$work/placer-simd") shown="GOEXPERIMENT=simd $shown" ;;
  esac
  (cd "$work" && "$@" >"$work/out" 2>"$work/err") || rc=$?
  if [ "$rc" != 0 ]; then
    echo "plots: $shown exited $rc, not recorded: $(head -n 3 "$work/err")" >&2
    return 0
  fi
  {
    echo "\$ ${shown% } # $tags"
    grep -v '^$' "$work/err" || true
    case $1 in
      "$oracle") grep -v '^$' "$work/out" || true ;;
    esac
  } >>"$hosts_txt"
  grep -h 'seconds:' "$work/err" "$work/out" | sed "s#^#plots:   $tags  #" || true
}

hosts_txt=$work/hosts.txt
{
  header "time per batch against hosts"
  if [ "$nova" = yes ]; then
    echo "nova: $(/usr/bin/python3 -c 'from nova import version; print(version.version_string())' 2>/dev/null || echo unknown)"
  fi
  echo "scenarios: placer gen --profile basic --seed 1 --hosts N --instances K"
  echo
} >"$hosts_txt"

for hosts in $hosts_list; do
  for instances in $instances_list; do
    file=hosts-${hosts}x${instances}.json
    tags="hosts=$hosts instances=$instances"
    echo "plots: $hosts hosts x $instances instances"
    "$work/placer" gen --profile basic --seed 1 --hosts "$hosts" --instances "$instances" -o "$work/$file"
    record "series=engine $tags" "$work/placer" place --impl engine --timing --runs "$runs" -f "$file"
    if [ "$simd" = 1 ]; then
      record "series=engine-simd $tags" "$work/placer-simd" place --impl engine --timing --runs "$runs" -f "$file"
    fi
    if [ $((hosts * instances)) -le "$ref_budget" ]; then
      record "series=reference $tags" "$work/placer" place --impl reference --timing --runs "$ref_runs" -f "$file"
    else
      echo "plots:   reference skipped: $hosts x $instances is past PLACER_BENCH_REFERENCE_BUDGET=$ref_budget"
    fi
    if [ "$nova" = yes ] && [ $((hosts * instances)) -le "$nova_budget" ]; then
      record "series=nova $tags" "$oracle" time "$file" -n "$nova_runs"
    elif [ "$nova" = yes ]; then
      echo "plots:   Nova skipped: $hosts x $instances is past PLOTS_NOVA_BUDGET=$nova_budget"
    fi
    rm -f "$work/$file"
  done
done
mv "$hosts_txt" "$data/hosts.txt"

if [ -n "$sched" ]; then
  echo "plots: go test ./bench -bench '$sched' -benchtime $schedtime"
  {
    header "placements/s against Scheduler workers"
    if [ -n "${GOEXPERIMENT:-}" ]; then echo "goexperiment: $GOEXPERIMENT"; fi
    go test ./bench -run '^$' -bench "$sched" -benchtime "$schedtime" -benchmem
  } >"$work/scheduler.txt"
  grep '^Benchmark' "$work/scheduler.txt" || true
  mv "$work/scheduler.txt" "$data/scheduler.txt"
fi

if [ "$placebatch" = 1 ]; then
  pattern="PlaceBatch/impl=(engine|reference)/filters=default/hosts=($(echo $hosts_list | tr ' ' '|'))\$/instances=($(echo $instances_list | tr ' ' '|'))\$"
  echo "plots: go test ./bench -bench '$pattern' -benchtime $placebatchtime"
  {
    header "BenchmarkPlaceBatch against hosts"
    echo "reference-budget: $ref_budget"
    if [ -n "${GOEXPERIMENT:-}" ]; then echo "goexperiment: $GOEXPERIMENT"; fi
    PLACER_BENCH_REFERENCE_BUDGET=$ref_budget go test ./bench -run '^$' -bench "$pattern" -benchtime "$placebatchtime" -benchmem
  } >"$work/placebatch.txt"
  grep '^Benchmark' "$work/placebatch.txt" || true
  mv "$work/placebatch.txt" "$data/placebatch.txt"
fi

"$work/placer" plot --data "$data" --out "$out"

#!/usr/bin/env bash
# Conformance against Nova's own scheduler code (make conformance).
#
# For each profile (basic, rich, wide) and CONFORMANCE_SEEDS seeds from
# CONFORMANCE_FIRST_SEED:
#   oracle gen -> placer place -> oracle check
# two scenarios at a time. Passing scenarios are deleted; a failing one keeps
# its scenario, result, stderr and check output in the work directory. One
# summary line per kernel path and profile, then the first lines of each
# mismatch. Exits 1 on any mismatch (or any placer failure), 2 when the
# oracle cannot run, a build fails, a kernel path cannot run (one named
# explicitly that this machine cannot take, or none left to run), or a seed
# count or first seed is not a whole number of at least 1.
#
# Environment:
#   CONFORMANCE_SEEDS      seeds per profile (50)
#   CONFORMANCE_FIRST_SEED the first seed (1): a later start checks scenarios
#                          no earlier run has seen
#   CONFORMANCE_HOSTS      hosts per scenario (300)
#   CONFORMANCE_INSTANCES  instances per request (8)
#   CONFORMANCE_PROFILES   the oracle's profiles ("basic rich wide"): basic is
#                          Nova's defaults, rich the whole filter and weigher
#                          catalogue, wide rich with extra_specs, JsonFilter
#                          queries and aggregate metadata from the whole
#                          grammar (../shared/nova-oracle/README.md)
#   CONFORMANCE_JOBS       scenarios in parallel (2)
#   CONFORMANCE_WORK       work directory (.work/conformance/IMPL-PID, so that
#                          runs in one clone do not meet; removed when all pass)
#   CONFORMANCE_TIMEOUT    seconds allowed per command (300)
#   CONFORMANCE_KERNELS    the kernel paths to run the scenarios on ("default"):
#                          default (the build's own choice: AVX-512, else
#                          AVX2, else the Go loops), portable (the -tags
#                          purego build: the Go loops, as on arm64), avx2 and
#                          avx512 (the default build with PLACER_KERNELS),
#                          simd (the GOEXPERIMENT=simd build, archsimd
#                          kernels); or paths: each of portable, avx2, avx512
#                          and simd this machine can take, all: default and
#                          those (a path named explicitly that this machine
#                          cannot take is an error, exit 2)
#   IMPL                   placer --impl: engine or reference (engine)
#   ORACLE                 the oracle command (../shared/nova-oracle/oracle)
#   CONFORMANCE_EXACT      1 (default): check through scripts/oracle-exact, the
#                          oracle with its weight and limit tolerances (1e-6
#                          relative) and rank tolerance (1e-9) set to 0, since
#                          placer promises Nova's weights bit for bit; 0: the
#                          oracle's own tolerances
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

impl=${IMPL:-engine}
seeds=${CONFORMANCE_SEEDS:-50}
first=${CONFORMANCE_FIRST_SEED:-1}
# count NAME VALUE: VALUE is a whole number of at least 1 (decimal, leading
# zeros allowed), else a usage error, exit 2: not a mismatch's exit 1, and
# never an empty run that passes.
count() {
  case $2 in
    '' | *[!0-9]*) ;;
    *) [ "$((10#$2))" -lt 1 ] || return 0 ;;
  esac
  echo "conformance: $1 must be a whole number >= 1, got '$2'" >&2
  exit 2
}
count CONFORMANCE_SEEDS "$seeds"
count CONFORMANCE_FIRST_SEED "$first"
seeds=$((10#$seeds)) first=$((10#$first))
last=$((first + seeds - 1))
hosts=${CONFORMANCE_HOSTS:-300}
instances=${CONFORMANCE_INSTANCES:-8}
profiles=${CONFORMANCE_PROFILES:-basic rich wide}
jobs=${CONFORMANCE_JOBS:-2}
work=${CONFORMANCE_WORK:-$root/.work/conformance/$impl-$$}
limit=${CONFORMANCE_TIMEOUT:-300}
oracle=${ORACLE:-$root/../shared/nova-oracle/oracle}
exact=${CONFORMANCE_EXACT:-1}

if [ ! -x "$oracle" ]; then
  echo "conformance: no oracle at $oracle (../shared must sit beside the repository)" >&2
  exit 2
fi
judge="the oracle's tolerances"
if [ "$exact" = 1 ]; then
  export ORACLE_REAL=$oracle
  oracle=$root/scripts/oracle-exact
  judge="weights and limits exact"
fi
if ! /usr/bin/python3 -c 'import nova' 2>/dev/null; then
  echo "conformance: Nova is not installed; run ../shared/nova-oracle/install.sh" >&2
  exit 2
fi

rm -rf "$work"
mkdir -p "$work/status"

# build KERNEL: makes $work/placer-KERNEL, the build a kernel path runs on
# (one and sane set PLACER_KERNELS for avx2, avx512 and simd): default,
# avx2 and avx512 share the default build, made once.
build() {
  case $1 in
    default | avx2 | avx512)
      [ -x "$work/placer-default" ] || go build -o "$work/placer-default" ./cmd/placer || return 2
      [ "$1" = default ] || ln -sf placer-default "$work/placer-$1" ;;
    portable) go build -tags purego -o "$work/placer-$1" ./cmd/placer ;;
    simd) GOEXPERIMENT=simd go build -o "$work/placer-$1" ./cmd/placer ;;
    *) echo "conformance: unknown kernel path $1 (default portable avx2 avx512 simd, or paths, all)" >&2; return 2 ;;
  esac
}

# kernel_env KERNEL: the env(1) arguments a kernel path's runs take:
# PLACER_KERNELS set to the path, or unset (whatever the caller exported)
# for the builds' own choice (default, portable).
kernel_env() {
  case $1 in
    avx2 | avx512 | simd) echo "PLACER_KERNELS=$1" ;;
    *) echo "-u PLACER_KERNELS" ;;
  esac
}

# sane KERNEL: the embedded scenario places (exit 0, 3 or 4) with placer-KERNEL
# on its path; a path this CPU cannot take panics at start-up (unavailable
# then tells that from any other failure).
sane() {
  local rc=0
  # shellcheck disable=SC2046 # kernel_env's words are env's arguments
  env $(kernel_env "$1") "$work/placer-$1" place --impl "$impl" >/dev/null 2>"$work/sanity-$1.err" || rc=$?
  [ "$rc" = 0 ] || [ "$rc" = 3 ] || [ "$rc" = 4 ]
}

# unavailable KERNEL: sane failed because this build or CPU cannot take the
# path (internal/kernels' start-up panic), not for another reason.
unavailable() {
  grep -q 'is not available in this build on this CPU' "$work/sanity-$1.err"
}

kernels=${CONFORMANCE_KERNELS:-default}
explicit=1
case $kernels in
  all) kernels="default portable avx2 avx512 simd" explicit=0 ;;
  paths) kernels="portable avx2 avx512 simd" explicit=0 ;;
esac
echo "conformance: building placer (impl $impl) for kernel paths: $kernels; $hosts hosts x $instances instances, seeds $first-$last, profiles $profiles, $judge, work dir $work"
runs=""
for k in $kernels; do
  build "$k" || exit 2
  if ! sane "$k"; then
    if [ "$explicit" = 1 ] || ! unavailable "$k"; then
      echo "conformance: placer place --impl $impl fails on its embedded scenario on kernel path $k: $(head -n 1 "$work/sanity-$k.err")" >&2
      exit 2
    fi
    echo "conformance: kernel path $k skipped: this machine cannot take it ($(head -n 1 "$work/sanity-$k.err"))"
    continue
  fi
  runs="$runs $k"
done
if [ -z "${runs// /}" ]; then
  echo "conformance: no kernel path to run (CONFORMANCE_KERNELS=${CONFORMANCE_KERNELS:-})" >&2
  exit 2
fi

# one KERNEL PROFILE SEED: runs one scenario on a kernel path, writes its
# status line ("ok EXIT", "mismatch EXIT", "placer-failed EXIT",
# "gen-failed") to $work/status/KERNEL-PROFILE-SEED and deletes its files
# when it passed.
one() {
  local kernel=$1 profile=$2 seed=$3
  local base="$work/$kernel-$profile-$seed" status rc=0
  if ! timeout "$limit" "$oracle" gen --hosts "$hosts" --instances "$instances" \
      --seed "$seed" --profile "$profile" >"$base.scenario.json" 2>"$base.gen.err"; then
    echo "gen-failed" >"$work/status/$kernel-$profile-$seed"
    return 0
  fi
  # shellcheck disable=SC2046 # kernel_env's words are env's arguments
  env $(kernel_env "$kernel") timeout "$limit" "$work/placer-$kernel" place --impl "$impl" -f "$base.scenario.json" \
    >"$base.result.json" 2>"$base.place.err" || rc=$?
  case $rc in
    0 | 3 | 4)
      if timeout "$limit" "$oracle" check "$base.scenario.json" "$base.result.json" \
          >"$base.check.txt" 2>&1; then
        status="ok $rc"
      else
        status="mismatch $rc"
      fi ;;
    *) status="placer-failed $rc" ;;
  esac
  echo "$status" >"$work/status/$kernel-$profile-$seed"
  if [ "${status%% *}" = ok ]; then
    rm -f "$base".*
  fi
}
export -f one kernel_env
export work hosts instances impl oracle limit

for k in $runs; do
  for profile in $profiles; do
    for seed in $(seq "$first" "$last"); do
      echo "$k $profile $seed"
    done
  done
done | xargs -r -P "$jobs" -n 3 bash -c 'one "$@"' _

# Summary: one line per kernel path and profile, then the failures.
failed=0
for k in $runs; do
  for profile in $profiles; do
    ok=0 nvh=0 other=0 bad=0
    for seed in $(seq "$first" "$last"); do
      status=missing rc=
      read -r status rc <"$work/status/$k-$profile-$seed" || true
      case "$status $rc" in
        "ok 3") ok=$((ok + 1)) nvh=$((nvh + 1)) ;;
        "ok 4") ok=$((ok + 1)) other=$((other + 1)) ;;
        ok*) ok=$((ok + 1)) ;;
        *) bad=$((bad + 1)) ;;
      esac
    done
    failed=$((failed + bad))
    echo "conformance $profile ($impl, kernels $k): $seeds scenarios, $ok match Nova ($nvh NoValidHost, $other other Nova errors), $bad mismatch"
  done
done

for k in $runs; do
  for profile in $profiles; do
    for seed in $(seq "$first" "$last"); do
      status=missing rc=
      read -r status rc <"$work/status/$k-$profile-$seed" || true
      if [ "$status" = ok ]; then continue; fi
      base="$work/$k-$profile-$seed"
      echo
      echo "--- $profile seed $seed on kernel path $k: $status${rc:+ (placer exit $rc)}; oracle gen --hosts $hosts --instances $instances --seed $seed --profile $profile; files: $base.*"
      case $status in
        mismatch) grep -v '^conformance:' "$base.check.txt" | head -n 5 || true
                  grep '^conformance:' "$base.check.txt" || true ;;
        placer-failed) head -n 5 "$base.place.err" ;;
        gen-failed) head -n 5 "$base.gen.err" ;;
      esac
    done
  done
done

if [ "$failed" -gt 0 ]; then
  echo
  echo "conformance: $failed scenario(s) differ from Nova (kept in $work)"
  exit 1
fi
rm -rf "$work"
echo "conformance: all scenarios match Nova"

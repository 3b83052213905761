#!/usr/bin/env bash
# Conformance against Nova's own scheduler code (make conformance).
#
# For each profile (basic, rich, wide) and seed 1..CONFORMANCE_SEEDS:
#   oracle gen -> placer place -> oracle check
# two scenarios at a time. Passing scenarios are deleted; a failing one keeps
# its scenario, result, stderr and check output in the work directory. One
# summary line per profile, then the first lines of each mismatch. Exits 1 on
# any mismatch (or any placer failure), 2 when the oracle cannot run.
#
# Environment:
#   CONFORMANCE_SEEDS      seeds per profile (50)
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
echo "conformance: building placer (impl $impl); $hosts hosts x $instances instances, seeds 1-$seeds, profiles $profiles, $judge, work dir $work"
go build -o "$work/placer" ./cmd/placer
rc=0
"$work/placer" place --impl "$impl" >/dev/null 2>"$work/sanity.err" || rc=$?
if [ "$rc" = 1 ] || [ "$rc" = 2 ] || [ "$rc" -gt 4 ]; then
  echo "conformance: placer place --impl $impl fails on its embedded scenario (exit $rc): $(head -n 1 "$work/sanity.err")" >&2
  exit 2
fi

# one PROFILE SEED: runs one scenario, writes its status line
# ("ok EXIT", "mismatch EXIT", "placer-failed EXIT", "gen-failed") to
# $work/status/PROFILE-SEED and deletes its files when it passed.
one() {
  local profile=$1 seed=$2
  local base="$work/$profile-$seed" status rc=0
  if ! timeout "$limit" "$oracle" gen --hosts "$hosts" --instances "$instances" \
      --seed "$seed" --profile "$profile" >"$base.scenario.json" 2>"$base.gen.err"; then
    echo "gen-failed" >"$work/status/$profile-$seed"
    return 0
  fi
  timeout "$limit" "$work/placer" place --impl "$impl" -f "$base.scenario.json" \
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
  echo "$status" >"$work/status/$profile-$seed"
  if [ "${status%% *}" = ok ]; then
    rm -f "$base".*
  fi
}
export -f one
export work hosts instances impl oracle limit

for profile in $profiles; do
  for seed in $(seq 1 "$seeds"); do
    echo "$profile $seed"
  done
done | xargs -P "$jobs" -n 2 bash -c 'one "$@"' _

# Summary: one line per profile, then the failures.
failed=0
for profile in $profiles; do
  ok=0 nvh=0 other=0 bad=0
  for seed in $(seq 1 "$seeds"); do
    status=missing rc=
    read -r status rc <"$work/status/$profile-$seed" || true
    case "$status $rc" in
      "ok 3") ok=$((ok + 1)) nvh=$((nvh + 1)) ;;
      "ok 4") ok=$((ok + 1)) other=$((other + 1)) ;;
      ok*) ok=$((ok + 1)) ;;
      *) bad=$((bad + 1)) ;;
    esac
  done
  failed=$((failed + bad))
  echo "conformance $profile ($impl): $seeds scenarios, $ok match Nova ($nvh NoValidHost, $other other Nova errors), $bad mismatch"
done

for profile in $profiles; do
  for seed in $(seq 1 "$seeds"); do
    status=missing rc=
    read -r status rc <"$work/status/$profile-$seed" || true
    if [ "$status" = ok ]; then continue; fi
    base="$work/$profile-$seed"
    echo
    echo "--- $profile seed $seed: $status${rc:+ (placer exit $rc)}; oracle gen --hosts $hosts --instances $instances --seed $seed --profile $profile; files: $base.*"
    case $status in
      mismatch) grep -v '^conformance:' "$base.check.txt" | head -n 5 || true
                grep '^conformance:' "$base.check.txt" || true ;;
      placer-failed) head -n 5 "$base.place.err" ;;
      gen-failed) head -n 5 "$base.gen.err" ;;
    esac
  done
done

if [ "$failed" -gt 0 ]; then
  echo
  echo "conformance: $failed scenario(s) differ from Nova (kept in $work)"
  exit 1
fi
rm -rf "$work"
echo "conformance: all scenarios match Nova"

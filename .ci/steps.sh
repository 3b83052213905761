# The step runner of .ci/run (sourced; .ci/selftest checks it).
#
#   step NAME COMMAND [ARG...]
#
# runs one command as one step: announces it (number, name, the command),
# runs it, and says it passed and how long it took. The script runs under
# `set -euo pipefail`, and a step is one simple command, never an `a && b`
# list: bash does not stop on a failure inside such a list (only its last
# command counts), which is how a `go vet` failure once let CI go on and
# exit 0. A command that is itself such a list runs as `bash -c '...'`,
# whose exit status is the list's.
#
# On exit, a trap prints the steps that passed and, on failure, the step
# that failed with its exit status, as the last line of the log. Cleanups
# registered with ci_cleanup run first.

case $- in
  *e*) ;;
  *) echo "ci: .ci/steps.sh needs set -e" >&2; exit 2 ;;
esac

ci_n=0            # steps started
ci_name=""        # the step running, "" between steps
ci_last=""        # the last step that passed
ci_passed=()      # "N name (S s)" per passed step
ci_cleanups=()    # commands run at exit

# ci_cleanup COMMAND: run COMMAND (a string, eval'd) at exit.
ci_cleanup() { ci_cleanups+=("$1"); }

ci_on_exit() {
  local rc=$? c
  for c in "${ci_cleanups[@]}"; do
    eval "$c" || true
  done
  echo
  for c in "${ci_passed[@]}"; do
    echo "ci: passed: step $c"
  done
  if [ "$rc" = 0 ]; then
    echo "ci: PASSED: all $ci_n steps"
  elif [ -n "$ci_name" ]; then
    echo "ci: FAILED at step $ci_n: $ci_name (exit $rc)" >&2
  else
    echo "ci: FAILED outside any step, after ${ci_last:-none} (exit $rc)" >&2
  fi
  exit "$rc"
}
trap ci_on_exit EXIT

# ci_quote ARG...: the command as one could type it back.
ci_quote() {
  local a out=()
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./=:,+@%^-]+$ ]]; then out+=("$a"); else out+=("${a@Q}"); fi
  done
  echo "${out[*]}"
}

step() {
  local name=$1 start=$SECONDS
  shift
  ci_n=$((ci_n + 1))
  ci_name=$name
  echo
  echo "ci: ==> step $ci_n: $name"
  echo "ci:     \$ $(ci_quote "$@")"
  "$@"
  echo "ci: <== step $ci_n passed: $name ($((SECONDS - start)) s)"
  ci_passed+=("$ci_n: $name ($((SECONDS - start)) s)")
  ci_last="step $ci_n ($name)"
  ci_name=""
}

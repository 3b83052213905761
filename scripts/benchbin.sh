# scripts/benchbin.sh, sourced by bench.sh, ab.sh and pair.sh: building
# the bench/ test binary of one build, and a worktree of an older commit
# to build it from.

# build_bench NAME BUILD SRC OUT: builds bench/ of the tree SRC as the
# default (no GOEXPERIMENT) or simd (GOEXPERIMENT=simd) build into OUT;
# NAME prefixes the error for an unknown build.
build_bench() {
  case $2 in
    default) (cd "$3" && env -u GOEXPERIMENT go test -c -o "$4" ./bench) ;;
    simd) (cd "$3" && GOEXPERIMENT=simd go test -c -o "$4" ./bench) ;;
    *) echo "$1: unknown build $2 (want default or simd)" >&2; exit 2 ;;
  esac
}

# old_worktree REV: checks REV out into a temporary worktree, removed on
# exit, and sets wt to its path.
old_worktree() {
  wt=$(mktemp -d)
  trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
  git worktree add -q --detach "$wt" "$1"
}

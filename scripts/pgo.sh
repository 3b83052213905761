#!/usr/bin/env bash
# make pgo: refreshes cmd/placer/default.pgo, the CPU profile the Go
# toolchain builds the placer command with (profile-guided optimization:
# go build, go run and go test of cmd/placer read default.pgo beside the
# main package by themselves, -pgo=auto). The profile is three runs of the
# README's main job, `placer simulate` at its defaults with seeds 1 to 3,
# merged. Build from a tree whose profile is not stale by much: PGO
# tolerates an old profile (it matches functions by name and line
# offset), and a new one is worth taking after the engine's hot paths
# change. The engine as a library is not built with it (a program
# embedding it builds with its own profile, if any); `go test ./bench`
# measures the engine without it unless given -pgo.
#
# Environment:
#   PGO_SEEDS   the simulate seeds profiled ("1 2 3")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seeds=${PGO_SEEDS:-1 2 3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built without the current profile, so that the new one describes the
# code as the compiler first sees it.
go build -pgo=off -o "$tmp/placer" ./cmd/placer
profiles=()
for s in $seeds; do
  echo "pgo: placer simulate --seed $s" >&2
  "$tmp/placer" simulate --seed "$s" --cpuprofile "$tmp/cpu-$s.prof" >/dev/null
  profiles+=("$tmp/cpu-$s.prof")
done
# Merged into a file of its own first: a failure leaves the committed
# profile as it was.
go tool pprof -proto "${profiles[@]}" >"$tmp/merged.pgo"
mv "$tmp/merged.pgo" cmd/placer/default.pgo
echo "pgo: wrote cmd/placer/default.pgo ($(wc -c <cmd/placer/default.pgo) bytes) from seeds $seeds" >&2

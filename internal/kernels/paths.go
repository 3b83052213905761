package kernels

import (
	"fmt"
	"os"
	"strings"
)

// A path is one implementation of every kernel: the portable Go loops,
// the assembly for AVX2 or for AVX-512 (amd64), or the archsimd kernels
// (GOEXPERIMENT=simd, amd64 with AVX-512). All compute the same bits.
type path uint8

const (
	pathPortable path = iota
	pathAVX2
	pathAVX512
	pathSimd
	nPaths
)

var pathNames = [nPaths]string{"portable", "avx2", "avx512", "simd"}

// supported reports whether this build and this CPU can take p.
func supported(p path) bool {
	switch p {
	case pathPortable:
		return true
	case pathAVX2:
		return hasAVX2
	case pathAVX512:
		return hasAVX512
	case pathSimd:
		return hasSimd
	}
	return false
}

// best is the path a build takes unless told otherwise: the assembly for
// the widest vectors the CPU has, else the portable loops. The archsimd
// kernels are taken only when asked for: the assembly is faster (paired,
// every kernel; PlaceBatch default x 1 at 50,000 hosts 1.7x, interleaved
// A/B), so that a GOEXPERIMENT=simd build runs as a default one does.
func best() path {
	for _, p := range []path{pathAVX512, pathAVX2} {
		if supported(p) {
			return p
		}
	}
	return pathPortable
}

// EnvVar names the environment variable that, when set, chooses the path
// at start-up (see SetPath for the names); an unknown name, or a path this
// build or CPU cannot take, panics, so that a test or benchmark never
// measures a path other than the one it asked for.
const EnvVar = "PLACER_KERNELS"

// cur is the path the kernels take.
var cur = initialPath()

// SIMD reports whether the kernels in use are vector ones (any path but
// the portable one). SetPath updates it; callers that read it once at
// start-up (the engine chooses its ranking strategy by it) see the path
// PLACER_KERNELS or the CPU chose.
var SIMD = cur != pathPortable

func initialPath() path {
	name, ok := os.LookupEnv(EnvVar)
	if !ok || name == "" {
		return best()
	}
	p, err := lookup(name)
	if err != nil {
		panic(fmt.Sprintf("kernels: %s=%s: %v", EnvVar, name, err))
	}
	return p
}

func lookup(name string) (path, error) {
	for p, n := range pathNames {
		if n == name {
			if !supported(path(p)) {
				return 0, fmt.Errorf("path %q is not available in this build on this CPU (available: %s)", name, strings.Join(Paths(), ", "))
			}
			return path(p), nil
		}
	}
	return 0, fmt.Errorf("unknown kernel path %q (known: %s)", name, strings.Join(pathNames[:], ", "))
}

// Paths returns the paths this build can take on this CPU, portable first:
// among "portable", "avx2", "avx512" (amd64, not with the purego build
// tag) and "simd" (GOEXPERIMENT=simd on amd64, with AVX-512).
func Paths() []string {
	var ps []string
	for p := range nPaths {
		if supported(p) {
			ps = append(ps, pathNames[p])
		}
	}
	return ps
}

// AllPaths returns the name of every path, available here or not.
func AllPaths() []string { return append([]string(nil), pathNames[:]...) }

// Path returns the name of the path the kernels take.
func Path() string { return pathNames[cur] }

// SetPath makes the kernels take the named path ("portable", "avx2",
// "avx512" or "simd") and returns a func that restores the previous one;
// an error if this build or CPU cannot take it. For tests and benchmarks:
// it must not run while kernels do, and what was decided from SIMD at
// start-up stays decided.
func SetPath(name string) (restore func(), err error) {
	p, err := lookup(name)
	if err != nil {
		return nil, err
	}
	was := cur
	cur, SIMD = p, p != pathPortable
	return func() { cur, SIMD = was, was != pathPortable }, nil
}

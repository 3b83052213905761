package synth

import (
	"math/rand/v2"
)

// rng wraps a PCG-seeded *rand.Rand with the draws the generators need,
// named after their Python counterparts in nova-oracle's gen.py.
type rng struct{ *rand.Rand }

// Independent PCG streams of one seed: the cloud and the request stream
// never share state, so the k-th request depends only on (seed, k) and
// not on how the cloud was drawn or read.
const (
	streamCloud   = 0x636c6f7564 // "cloud"
	streamRequest = 0x7265717565 // "reque"
	streamDrivers = 0x6472697672 // "drivr"
)

func newRNG(seed, stream uint64) rng {
	return rng{rand.New(rand.NewPCG(seed, stream))}
}

// between is random.randint(lo, hi): inclusive at both ends.
func (r rng) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + r.IntN(hi-lo+1)
}

// uniform is random.uniform(lo, hi).
func (r rng) uniform(lo, hi float64) float64 {
	return lo + float64((hi-lo)*r.Float64()) // rounded: one cloud on every architecture
}

// chance is random.random() < p.
func (r rng) chance(p float64) bool { return r.Float64() < p }

// pick returns one of items, chosen uniformly.
func pick[T any](r rng, items []T) T { return items[r.IntN(len(items))] }

// pickW is random.choices(items, weights)[0]: weights need not sum to 1.
func pickW[T any](r rng, items []T, weights []float64) T {
	return items[pickIndexW(r, weights)]
}

func pickIndexW(r rng, weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := r.Float64() * total
	for i, w := range weights {
		x -= w
		if x < 0 {
			return i
		}
	}
	return len(weights) - 1
}

// sampleIdx is random.sample(range(n), k): k distinct indexes below n in
// random order (k is clamped to [0, n]). It is O(k) for k much smaller
// than n and O(n) otherwise.
func (r rng) sampleIdx(n, k int) []int {
	k = max(0, min(k, n))
	if k == 0 {
		return nil
	}
	if k*4 > n {
		return r.Perm(n)[:k]
	}
	out := make([]int, 0, k)
	seen := make(map[int]struct{}, k)
	for len(out) < k {
		i := r.IntN(n)
		if _, dup := seen[i]; !dup {
			seen[i] = struct{}{}
			out = append(out, i)
		}
	}
	return out
}

// sample is random.sample(items, k).
func sample[T any](r rng, items []T, k int) []T {
	idx := r.sampleIdx(len(items), k)
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}

// shuffled returns a shuffled copy of items.
func shuffled[T any](r rng, items []T) []T {
	out := append([]T(nil), items...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

const hexDigits = "0123456789abcdef"

// appendUUID appends a random version-4 uuid (36 characters) to dst.
func (r rng) appendUUID(dst []byte) []byte {
	var b [16]byte
	x, y := r.Uint64(), r.Uint64()
	for i := 0; i < 8; i++ {
		b[i], b[8+i] = byte(x>>(8*i)), byte(y>>(8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// uuid returns a random version-4 uuid.
func (r rng) uuid() string {
	var buf [36]byte
	return string(r.appendUUID(buf[:0]))
}

// uuids returns n random uuids backed by one allocation.
func (r rng) uuids(n int, scratch *[]byte) []string {
	if n == 0 {
		return nil
	}
	buf := (*scratch)[:0]
	for i := 0; i < n; i++ {
		buf = r.appendUUID(buf)
	}
	*scratch = buf
	s := string(buf)
	out := make([]string, n)
	for i := range out {
		out[i] = s[36*i : 36*(i+1)]
	}
	return out
}

package bitmap

import "math/bits"

// ShardBits is log2 of the number of hosts in a shard.
const ShardBits = 12

// ShardSize is the number of hosts in a shard (a power of two).
const ShardSize = 1 << ShardBits

// ShardWords is the number of 64-bit words that hold one shard.
const ShardWords = ShardSize / 64

// Set is a set of host ids in [0, Len()), one bit per host.
//
// Invariant: bits at positions >= Len() are always zero, so Count and the
// iteration never see hosts that do not exist. The methods taking a host
// (Add, Remove, Has) require it below Len(), unchecked (they are the
// inner loops' calls); those taking another set (And, AndNot, Or,
// Intersects, CopyFrom) panic when it ranges over another Len().
type Set struct {
	words []uint64
	n     int
}

// NewSet returns an empty set over n hosts.
func NewSet(n int) *Set {
	return &Set{words: make([]uint64, (n+63)/64), n: n}
}

// Len is the number of hosts the set ranges over (not its cardinality).
func (s *Set) Len() int { return s.n }

// Words exposes the underlying words; shard k is
// Words()[k*ShardWords : min((k+1)*ShardWords, len)].
func (s *Set) Words() []uint64 { return s.words }

// Shards is the number of shards of the set.
func (s *Set) Shards() int { return (s.n + ShardSize - 1) / ShardSize }

// ShardWordsOf returns the words of shard k.
func (s *Set) ShardWordsOf(k int) []uint64 {
	lo := k * ShardWords
	hi := min(lo+ShardWords, len(s.words))
	return s.words[lo:hi]
}

// Fill adds every host.
func (s *Set) Fill() {
	for i := range s.words {
		s.words[i] = ^uint64(0)
	}
	s.trim()
}

// Reset removes every host.
func (s *Set) Reset() { clear(s.words) }

func (s *Set) trim() {
	if r := s.n % 64; r != 0 {
		s.words[len(s.words)-1] &= (1 << r) - 1
	}
}

// Add adds host i.
func (s *Set) Add(i uint32) { s.words[i>>6] |= 1 << (i & 63) }

// Remove removes host i.
func (s *Set) Remove(i uint32) { s.words[i>>6] &^= 1 << (i & 63) }

// Has reports whether host i is in the set.
func (s *Set) Has(i uint32) bool { return s.words[i>>6]&(1<<(i&63)) != 0 }

// Count returns the number of hosts in the set.
func (s *Set) Count() int {
	c := 0
	for _, w := range s.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// Any reports whether the set holds a host.
func (s *Set) Any() bool {
	for _, w := range s.words {
		if w != 0 {
			return true
		}
	}
	return false
}

// CopyFrom makes s equal to o (same Len).
func (s *Set) CopyFrom(o *Set) {
	s.same(o)
	copy(s.words, o.words)
}

// same panics unless o ranges over s's hosts: a shorter o would leave
// s's tail as it was, a longer one set bits past s.Len().
// (A constant message: formatting the two lengths cost And, Or and the
// others their inlining in the engine's loops.)
func (s *Set) same(o *Set) {
	if s.n != o.n {
		panic("bitmap: sets over different numbers of hosts combined")
	}
}

// Clone returns a copy of s.
func (s *Set) Clone() *Set {
	c := &Set{words: make([]uint64, len(s.words)), n: s.n}
	copy(c.words, s.words)
	return c
}

// And keeps the hosts that are also in o and reports whether it removed
// any.
func (s *Set) And(o *Set) (removed bool) {
	s.same(o)
	var gone uint64
	for i, w := range o.words {
		gone |= s.words[i] &^ w
		s.words[i] &= w
	}
	return gone != 0
}

// AndNot removes the hosts that are in o.
func (s *Set) AndNot(o *Set) {
	s.same(o)
	for i, w := range o.words {
		s.words[i] &^= w
	}
}

// Or adds the hosts of o.
func (s *Set) Or(o *Set) {
	s.same(o)
	for i, w := range o.words {
		s.words[i] |= w
	}
}

// Intersects reports whether s and o share a host.
func (s *Set) Intersects(o *Set) bool {
	s.same(o)
	for i, w := range o.words {
		if s.words[i]&w != 0 {
			return true
		}
	}
	return false
}

// Equal reports whether s and o hold the same hosts.
func (s *Set) Equal(o *Set) bool {
	if s.n != o.n {
		return false
	}
	for i, w := range s.words {
		if o.words[i] != w {
			return false
		}
	}
	return true
}

// Next returns the smallest host >= i in the set, or -1.
func (s *Set) Next(i int) int {
	if i >= s.n {
		return -1
	}
	i = max(i, 0)
	wi := i >> 6
	w := s.words[wi] >> (uint(i) & 63)
	if w != 0 {
		return i + bits.TrailingZeros64(w)
	}
	for wi++; wi < len(s.words); wi++ {
		if w := s.words[wi]; w != 0 {
			return wi<<6 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Select returns the k-th smallest host in the set (k from 0), or -1 when
// the set holds k hosts or fewer: a pass over the words by popcount, then
// a walk of one word.
func (s *Set) Select(k int) int {
	if k < 0 {
		return -1
	}
	for wi, w := range s.words {
		c := bits.OnesCount64(w)
		if k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			w &= w - 1
		}
		return wi<<6 + bits.TrailingZeros64(w)
	}
	return -1
}

// ForEach calls fn for every host in increasing order.
func (s *Set) ForEach(fn func(i uint32)) {
	for wi, w := range s.words {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(uint32(wi<<6 + t))
			w &= w - 1
		}
	}
}

// AppendTo appends the hosts in increasing order to dst and returns it.
func (s *Set) AppendTo(dst []uint32) []uint32 {
	for wi, w := range s.words {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			dst = append(dst, uint32(wi<<6+t))
			w &= w - 1
		}
	}
	return dst
}

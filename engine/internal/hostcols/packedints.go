package hostcols

import "math/bits"

// packedInts is a read-only array of non-negative ints at the width of its
// largest: 20 bits an entry where an []int32 spends 32, for the ~860,000
// entries of a 100,000-host cloud's instance index.
//
// Invariants: entry i is bits [i*w, (i+1)*w) of words (little-endian
// within a word; an entry may straddle two words); 1 <= w <= 63 and mask
// is 1<<w - 1; words holds one word past the last entry's, so get reads
// two words without a bounds branch; len(words) == 0 only for no entries.
type packedInts struct {
	words []uint64
	w     uint
	mask  uint64
	n     int
}

// newPackedInts packs vals, each in [0, top] (top >= 0).
func newPackedInts(vals []int32, top int32) packedInts {
	p := packedInts{w: uint(max(1, bits.Len32(uint32(top)))), n: len(vals)}
	p.mask = 1<<p.w - 1
	if len(vals) > 0 {
		p.words = make([]uint64, (len(vals)*int(p.w)+63)/64+1)
	}
	for i, v := range vals {
		p.set(i, uint64(v))
	}
	return p
}

// set writes entry i (only while building: v must fit w bits, entry i
// must still be zero).
func (p *packedInts) set(i int, v uint64) {
	bit := uint(i) * p.w
	k, off := bit>>6, bit&63
	p.words[k] |= v << off
	p.words[k+1] |= v >> (64 - off) // 0 when off == 0
}

// get returns entry i.
func (p *packedInts) get(i int) int32 {
	bit := uint(i) * p.w
	k, off := bit>>6, bit&63
	return int32((p.words[k]>>off | p.words[k+1]<<(64-off)) & p.mask)
}

// len is the number of entries.
func (p *packedInts) len() int { return p.n }

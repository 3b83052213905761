package engine

import (
	"math"

	"github.com/placer/placer/internal/kernels"
)

// The multipliers' summary of a snapshot's shards (multipliers, in
// shard.go): per weigher, the most common multiplier (its base), the
// largest in magnitude, and how many hosts differ from the base, each
// shard listing its own (shard.multOver).

// summarise returns the shards' multipliers' summary and sets every
// shard's multOver. A coded column (a few distinct multipliers, the
// common case) is counted code by code, not value by value.
func summarise(shards []*shard) multipliers { return summariseFrom(shards, 0) }

// summariseFrom is summarise setting the multOver of shards[from:] only:
// those before are a published snapshot's, never written to, whose
// multOver counts if the bases are that snapshot's (the caller checks:
// buildShards).
func summariseFrom(shards []*shard, from int) (m multipliers) {
	per := make([][kernels.CodedValues]int, len(shards)) // a coded column's hosts per code
	for w := range numWeighers {
		count := map[uint64]int{}
		for k, sh := range shards {
			col := &sh.mult[w]
			tab := col.Table()
			if tab == nil {
				for j := range col.Len() {
					x := col.At(j)
					count[math.Float64bits(x)]++
					m.maxAbs[w] = max(m.maxAbs[w], math.Abs(x))
				}
				continue
			}
			per[k] = [kernels.CodedValues]int{}
			for j := range col.Len() {
				per[k][col.Code(j)]++
			}
			for c, hosts := range per[k] {
				if hosts > 0 {
					count[math.Float64bits(tab[c])] += hosts
					m.maxAbs[w] = max(m.maxAbs[w], math.Abs(tab[c]))
				}
			}
		}
		base, most := uint64(0), -1
		for b, c := range count {
			if c > most || (c == most && b < base) {
				base, most = b, c
			}
		}
		m.base[w] = math.Float64frombits(base)
		for k, sh := range shards {
			if k < from {
				m.overs[w] += len(sh.multOver[w])
				continue
			}
			sh.multOver[w] = nil
			col := &sh.mult[w]
			if tab := col.Table(); tab != nil {
				over := 0
				for c, hosts := range per[k] {
					if hosts > 0 && math.Float64bits(tab[c]) != base {
						over += hosts
					}
				}
				if over == 0 {
					continue
				}
			}
			for j := range col.Len() {
				if math.Float64bits(col.At(j)) != base {
					sh.multOver[w] = append(sh.multOver[w], uint16(j))
					m.overs[w]++
				}
			}
		}
	}
	return m
}

// sameBases reports whether a and b have the same base multipliers, bit
// for bit.
func sameBases(a, b *multipliers) bool {
	for w := range a.base {
		if math.Float64bits(a.base[w]) != math.Float64bits(b.base[w]) {
			return false
		}
	}
	return true
}

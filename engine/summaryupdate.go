package engine

import (
	"slices"

	"github.com/placer/placer/internal/kernels"
)

// Block summaries brought up to date in place of a new pass. A
// compaction changes a few hosts of most blocks (256 delta entries over
// the ~100 blocks of 50,000 hosts); summarising each changed block again
// reads all of its 512 hosts for every usage weigher, and was a quarter
// of the uniform stream's CPU. A summary's extremes carry over instead:
// the hosts of its top list that did not change still hold their values,
// and every unchanged host off the list still holds no more than the
// list's last value did; so the unchanged entries, with the changed hosts
// whose new values reach that last value, are again a top list (of fewer
// entries when some left it). The bottom list likewise. A list left with
// fewer than minExtremes entries (its block's largest hosts were consumed
// on again and again), a block of at most extremes hosts, or a NaN, and
// the block is summarised again.

// minExtremes is the fewest entries an updated list may keep: below it,
// the block is summarised again, so that a candidate is still often among
// the listed extremes (blockstats.go reads its value from the list
// instead of running the masked kernel over the block).
const minExtremes = extremes / 2

// updateSummary brings s, the summary of a block's raw values old, up to
// date with their values cur after the hosts at offsets changed (sorted,
// distinct) took new ones, every other value the same; it reports false,
// leaving s as it was, when the block must be summarised again.
func updateSummary(s *blockSummary, old, cur *kernels.Col, changed []uint16) bool {
	if s.nTop == 0 || s.nBot == 0 || cur.Len() <= extremes {
		return false // a NaN's summary, or a block every list holds whole
	}
	for _, j := range changed {
		if x := cur.At(int(j)); x != x {
			return false
		}
	}
	top, nTop, topKey := mergeExtremes(&s.top, s.nTop, old, cur, changed, false)
	bottom, nBot, botKey := mergeExtremes(&s.bottom, s.nBot, old, cur, changed, true)
	if nTop < minExtremes || nBot < minExtremes {
		return false
	}
	s.top, s.nTop, s.bottom, s.nBot = top, nTop, bottom, nBot
	s.hi, s.lo = fromOrderKey(topKey), fromOrderKey(^botKey)
	s.cnst = topKey == ^botKey
	return true
}

// mergeExtremes returns the list of ats[:n] (a top list; with bottom, a
// bottom list) after the hosts at offsets changed took their values in
// cur: its unchanged entries, and the changed hosts whose values reach
// its last entry's old value, in the list's order (by orderKey, largest
// first for a top list, smallest first for a bottom one; ties by offset,
// as summarize adds them), at most extremes of them; with the list's
// length and its first entry's orderKey (its complement for a bottom
// list).
func mergeExtremes(ats *[extremes]uint16, n uint8, old, cur *kernels.Col, changed []uint16, bottom bool) (out [extremes]uint16, m uint8, first uint64) {
	key := func(c *kernels.Col, at uint16) uint64 {
		k := orderKey(c.At(int(at)))
		if bottom {
			return ^k
		}
		return k
	}
	var keys [extremes]uint64
	for _, at := range ats[:n] {
		if _, hit := slices.BinarySearch(changed, at); !hit {
			keys[m], out[m] = key(cur, at), at
			m++
		}
	}
	last := key(old, ats[n-1])
	for _, at := range changed {
		k := key(cur, at)
		if k < last {
			continue // below the last entry, as every host off the list
		}
		i := int(m)
		for i > 0 && (keys[i-1] < k || keys[i-1] == k && out[i-1] > at) {
			i--
		}
		if i == extremes {
			continue
		}
		end := min(int(m), extremes-1)
		copy(keys[i+1:end+1], keys[i:end])
		copy(out[i+1:end+1], out[i:end])
		keys[i], out[i] = k, at
		m = uint8(min(int(m)+1, extremes))
	}
	return out, m, keys[0]
}

package engine

import (
	"cmp"
	"slices"
)

// collector keeps the k best candidates offered (weight descending, then
// host id), and every candidate tied with the best when asked to.
type collector struct {
	k        int
	wantTies bool
	best     []scored
	ties     []scored
}

func (c *collector) init(k int, wantTies bool) {
	c.k, c.wantTies = k, wantTies
	c.best = make([]scored, 0, k)
}

// threshold is the k-th best candidate so far: a weight below its weight
// cannot enter any more. ok is false while there is room.
func (c *collector) threshold() (s scored, ok bool) {
	if len(c.best) < c.k {
		return scored{}, false
	}
	return c.best[c.k-1], true
}

func (c *collector) offer(x scored) {
	if c.k == 0 {
		return
	}
	if c.wantTies {
		switch {
		case len(c.ties) == 0 || x.score > c.ties[0].score:
			c.ties = append(c.ties[:0], x)
		case x.score == c.ties[0].score:
			c.ties = append(c.ties, x)
		}
	}
	if len(c.best) == c.k && !better(x, c.best[c.k-1]) {
		return
	}
	pos := len(c.best)
	for pos > 0 && better(x, c.best[pos-1]) {
		pos--
	}
	if len(c.best) < c.k {
		c.best = append(c.best, scored{})
	}
	copy(c.best[pos+1:], c.best[pos:len(c.best)-1])
	c.best[pos] = x
}

// tieList returns the ties in id order (nil unless asked for).
func (c *collector) tieList() []scored {
	if !c.wantTies {
		return nil
	}
	slices.SortFunc(c.ties, func(a, b scored) int { return cmp.Compare(a.id, b.id) })
	return c.ties
}

// scored is a candidate and its total weight.
type scored struct {
	id    uint32
	score float64
}

// better ranks candidates: weight descending, then host id ascending.
func better(a, b scored) bool {
	return a.score > b.score || (a.score == b.score && a.id < b.id)
}

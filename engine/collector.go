package engine

import (
	"cmp"
	"slices"
)

// collector keeps the k best candidates offered (better's order), and
// every candidate tied with the best when asked to.
type collector struct {
	k        int
	wantTies bool
	best     []scored
	ties     []scored
	// chosen, when not nil, is the batch's chosen hosts: see better.
	chosen *recency
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
	if len(c.best) == c.k && !c.better(x, c.best[c.k-1]) {
		return
	}
	pos := len(c.best)
	for pos > 0 && c.better(x, c.best[pos-1]) {
		pos--
	}
	if len(c.best) < c.k {
		c.best = append(c.best, scored{})
	}
	copy(c.best[pos+1:], c.best[pos:len(c.best)-1])
	c.best[pos] = x
}

// tieList returns the ties in better's order, the order of Nova's list
// that its shuffle starts from: the hosts chosen in the batch, most
// recent first, then the others in id order (nil unless asked for).
func (c *collector) tieList() []scored {
	if !c.wantTies {
		return nil
	}
	slices.SortFunc(c.ties, func(a, b scored) int {
		switch {
		case c.better(a, b):
			return -1
		case c.better(b, a):
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})
	return c.ties
}

// scored is a candidate and its total weight.
type scored struct {
	id    uint32
	score float64
}

// better ranks candidates: weight descending; of equal weights, the host
// chosen most recently in the batch first (chosen), then host id
// ascending.
//
// Nova's loop hands each instance the list [the host just chosen] + the
// rest in the order it weighed them, and sorts it stably by weight: of
// hosts of equal weight, the one its previous step chose comes first.
// Hosts whose raw values (and multipliers) are equal have had equal
// weights since the last of them was chosen when only a chosen host's
// values change, so the recency of their choice orders them, and the
// hosts never chosen keep the order of the first list, host id here.
// Where that does not hold Nova's order follows earlier weights, which
// this rule does not replay: the soft group weighers count a new member
// on every node of the chosen host; hosts of different values or
// multipliers can weigh the same at one step and not at another; and
// with shuffle_best_same_weighed_hosts Nova's list keeps each shuffle's
// permutation, where this rule goes back to recency, then id.
func (c *collector) better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score // false when either is NaN, as before
	}
	if c.chosen != nil {
		ra, oka := c.chosen.of(a.id)
		rb, okb := c.chosen.of(b.id)
		switch {
		case oka && (!okb || ra > rb):
			return true
		case okb:
			return false
		}
	}
	return a.id < b.id
}

package engine

import (
	"math"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// JsonFilter on the columns: the query compiled (nova.Query.Compile) into
// ranges of usage integers, judged by a kernel over each shard's int32
// column, and parts that read static attributes only, judged once per
// distinct value of what they read and memoised per snapshot lineage
// (staticVerdict), combined word by word. JsonFilter runs for every
// instance: the kernel judges instance 0's hosts (and a NoValidHost's
// replay) on the snapshot's columns and the overlay's hosts are re-tested
// on their usage now (jsonPasses); later instances re-test only the hosts
// a placement changed. A query the compiler refuses, or whose static
// parts raise on some host, is evaluated host by host.

// jsonNode is a compiled query with its static parts resolved to masks.
type jsonNode struct {
	op     nova.QueryOp
	value  bool                    // QConst
	pass   *bitmap.Set             // QStatic: the hosts where it holds
	col    func(sh *shard) []int32 // QRange: the usage column
	lo, hi int32                   // QRange, clamped to int32 (lo > hi: empty)
	args   []*jsonNode
}

// noQuery reports that the request has no JsonFilter query, which the
// filter passes without looking at a host.
func noQuery(b *batch) bool { return b.query == nil }

// jsonCompile returns b's query compiled and resolved, or false when it
// is evaluated host by host.
func jsonCompile(b *batch) (*jsonNode, bool) {
	q, ok := b.query.Compile()
	if !ok {
		return nil, false
	}
	return jsonResolve(b, q)
}

// jsonResolve resolves q's static parts to their verdicts' masks; false
// when one raises on some host.
func jsonResolve(b *batch, q *nova.QueryNode) (*jsonNode, bool) {
	n := &jsonNode{op: q.Op, value: q.Value}
	switch q.Op {
	case nova.QStatic:
		sq := q.Static
		var parts keyParts
		for _, a := range sq.Attrs {
			parts |= attrParts(a)
		}
		v := staticVerdict(b, "json\x00"+sq.Key, parts, func(id uint32) (bool, error) {
			var h nova.HostAttrs
			b.attrs(id, &h)
			return sq.Pass(&h)
		}, nil)
		if v.raise != nil {
			return nil, false
		}
		n.pass = v.pass
	case nova.QRange:
		n.col = intAttrs[q.Attr].col
		n.lo, n.hi = int32(max(q.Lo, math.MinInt32)), int32(min(q.Hi, math.MaxInt32))
		if q.Lo > q.Hi || q.Lo > math.MaxInt32 || q.Hi < math.MinInt32 {
			n.lo, n.hi = 1, 0
		}
	}
	for _, a := range q.Args {
		r, ok := jsonResolve(b, a)
		if !ok {
			return nil, false
		}
		n.args = append(n.args, r)
	}
	return n, true
}

// jsonPlan is JsonFilter's fused stage: a mask when the query reads static
// attributes only, else its kernel, with the overlay's hosts re-tested.
func jsonPlan(b *batch) (stage, bool) {
	if noQuery(b) {
		return stage{}, true
	}
	n, ok := jsonCompile(b)
	switch {
	case !ok:
		return stage{}, false
	case n.op == nova.QConst && n.value:
		return stage{}, true
	case n.op == nova.QConst:
		return stage{mask: b.set()}, true
	case n.op == nova.QStatic:
		return stage{mask: n.pass}, true
	}
	return stage{kernel: func(b *batch, k int, words []uint64) {
		var out [bitmap.ShardWords]uint64
		n.eval(b, k, words, out[:len(words)])
		copy(words, out[:len(words)])
	}, retest: jsonPasses}, true
}

// jsonApply is JsonFilter over set: its fused stage alone, else host by
// host.
func jsonApply(b *batch, set *bitmap.Set) error {
	if noQuery(b) {
		return nil
	}
	if st, ok := jsonPlan(b); ok {
		_, _, err := b.applyFused(set, []stage{st}, false)
		return err
	}
	return applyHost(b, set, jsonPasses)
}

// eval sets out (shard k's words) to the hosts of words where n holds, on
// the snapshot's columns.
func (n *jsonNode) eval(b *batch, k int, words, out []uint64) {
	switch n.op {
	case nova.QConst:
		if n.value {
			copy(out, words)
		} else {
			clear(out)
		}
	case nova.QStatic:
		copy(out, words)
		andWords(out, n.pass.ShardWordsOf(k))
	case nova.QRange:
		copy(out, words)
		kernels.RangePass(out, n.col(b.s.shards[k]), n.lo, n.hi, false)
	case nova.QAnd:
		copy(out, words)
		var tmp [bitmap.ShardWords]uint64
		for _, a := range n.args {
			a.eval(b, k, out, tmp[:len(out)])
			copy(out, tmp[:len(out)])
		}
	case nova.QOr:
		clear(out)
		var tmp [bitmap.ShardWords]uint64
		for _, a := range n.args {
			a.eval(b, k, words, tmp[:len(out)])
			for i := range out {
				out[i] |= tmp[i]
			}
		}
	case nova.QNot:
		n.args[0].eval(b, k, words, out)
		for i := range out {
			out[i] = words[i] &^ out[i]
		}
	}
}

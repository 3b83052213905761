package engine

import (
	"slices"
	"sort"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/nova"
)

// SimpleCIDRAffinityFilter through an index of the hosts' addresses: the
// hosts inside an IPv4 network are a run of the hosts sorted by address,
// found by binary search, so a request costs the hosts inside, not every
// host. Hosts whose host_ip is not plain IPv4 text (IPv6, odd text, none)
// are judged one by one, in host order, as Nova judges them.

// cidrIndex is the hosts' addresses, sorted. Invariants: ips ascending,
// ids[i] is a host whose address is ips[i] (ties by id); others ascending.
type cidrIndex struct {
	ips    []uint32
	ids    []uint32
	others []uint32 // the hosts without a plain IPv4 host_ip
}

// cidrIdx is the snapshot's cidrIndex, built on first use and memoised
// with its static data.
func cidrIdx(b *batch) *cidrIndex {
	return b.s.info.memo.get("cidr-index", func() any {
		info := b.s.info
		idx := &cidrIndex{}
		type entry struct{ ip, id uint32 }
		var es []entry
		for id := uint32(0); int(id) < b.s.n; id++ {
			if ip, ok := info.hostIPs.V4(id); ok {
				es = append(es, entry{ip, id})
			} else {
				idx.others = append(idx.others, id)
			}
		}
		slices.SortFunc(es, func(x, y entry) int {
			if x.ip != y.ip {
				return cmpUint32(x.ip, y.ip)
			}
			return cmpUint32(x.id, y.id)
		})
		idx.ips, idx.ids = make([]uint32, len(es)), make([]uint32, len(es))
		for i, e := range es {
			idx.ips[i], idx.ids[i] = e.ip, e.id
		}
		return idx
	}).(*cidrIndex)
}

func cmpUint32(x, y uint32) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// noNearHost reports that the request gives no build_near_host_ip hint,
// which SimpleCIDRAffinityFilter passes without looking at a host.
func noNearHost(b *batch) bool { return b.req.SchedulerHints.BuildNearHostIP == "" }

// cidrInside returns a set of the hosts with a plain IPv4 address inside
// net.
func cidrInside(b *batch, idx *cidrIndex, net nova.CIDRNetwork) *bitmap.Set {
	m := b.set()
	if !net.V4 {
		return m
	}
	i := sort.Search(len(idx.ips), func(i int) bool { return idx.ips[i] >= net.Lo })
	j := sort.Search(len(idx.ips), func(i int) bool { return idx.ips[i] > net.Hi })
	for _, id := range idx.ids[i:j] {
		m.Add(id)
	}
	return m
}

// cidrPlan is SimpleCIDRAffinityFilter's fused stage: the hosts inside the
// network, when no host can raise (every host's address is plain IPv4 and
// the network parses).
func cidrPlan(b *batch) (stage, bool) {
	if noNearHost(b) {
		return stage{}, true
	}
	idx := cidrIdx(b)
	if len(idx.others) > 0 {
		return stage{}, false
	}
	h := &b.req.SchedulerHints
	net, err := nova.ParseCIDRAffinity(h.BuildNearHostIP, h.AffinityCIDR())
	if err != nil {
		return stage{}, false
	}
	return stage{mask: cidrInside(b, idx, net)}, true
}

// cidrApply is SimpleCIDRAffinityFilter over set, raising where Nova
// raises first: at the first host when the network does not parse, else
// at the first host in play whose address does not.
func cidrApply(b *batch, set *bitmap.Set) error {
	if noNearHost(b) {
		return nil
	}
	h := &b.req.SchedulerHints
	net, err := nova.ParseCIDRAffinity(h.BuildNearHostIP, h.AffinityCIDR())
	if err != nil {
		if set.Any() {
			return pyError(err)
		}
		return nil
	}
	idx := cidrIdx(b)
	m := cidrInside(b, idx, net)
	info := b.s.info
	for _, id := range idx.others {
		if !set.Has(id) {
			continue
		}
		ok, err := nova.SimpleCIDRCheck(info.hostIP(id), h.BuildNearHostIP, h.AffinityCIDR())
		if err != nil {
			return pyError(err)
		}
		if ok {
			m.Add(id)
		}
	}
	set.And(m)
	return nil
}

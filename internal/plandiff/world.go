package plandiff

import (
	"fmt"
	"slices"

	"github.com/placer/placer/engine"
)

// World is what a test knows of an engine.Store's changes, so that the
// reference can decide on the cloud the Store's state describes: the
// Store's cloud as changed (hosts added and removed, aggregates), and the
// instances it committed and has not released.
//
// Invariant: Cloud's hosts are the Store's, in the order of its newest
// snapshot's host ids; Live holds exactly the Store's committed instances
// (Order lists them in commit order).
type World struct {
	Cloud engine.Cloud
	Live  map[string]LivePlacement
	Order []string // live uuids, in commit order
	Gone  []string // released uuids, in release order
}

// LivePlacement is an instance the Store committed and has not released.
type LivePlacement struct {
	Node  engine.HostNode
	Group string // its server group's uuid, "" without one
}

// NodeOf is host record h's host and node name (the node is the host's
// name when the record gives none).
func NodeOf(h *engine.Host) engine.HostNode {
	if h.Node == "" {
		return engine.HostNode{Host: h.Host, Node: h.Host}
	}
	return engine.HostNode{Host: h.Host, Node: h.Node}
}

// NewWorld is the world of a Store made from cloud.
func NewWorld(cloud engine.Cloud) *World {
	return &World{Cloud: cloud, Live: map[string]LivePlacement{}}
}

// Committed records the placements of plan, made for req and committed
// whole.
func (w *World) Committed(req engine.Request, plan engine.Plan) {
	group := ""
	if req.InstanceGroup != nil {
		group = req.InstanceGroup.UUID
	}
	for _, p := range plan.Placements {
		w.Live[p.InstanceUUID] = LivePlacement{engine.HostNode{Host: p.Host, Node: p.Node}, group}
		w.Order = append(w.Order, p.InstanceUUID)
	}
}

// Released records that uuid was deleted.
func (w *World) Released(uuid string) {
	delete(w.Live, uuid)
	w.Order = slices.DeleteFunc(w.Order, func(u string) bool { return u == uuid })
	w.Gone = append(w.Gone, uuid)
}

// RemoveHost records that host id (node hn) was removed: the instances
// committed on it are forgotten, as the Store forgets them. It returns the
// removed host, or an error when host id is not node hn.
func (w *World) RemoveHost(id int, hn engine.HostNode) (engine.Host, error) {
	h := w.Cloud.Hosts[id]
	if NodeOf(&h) != hn {
		return h, fmt.Errorf("host %d is %s/%s in the world, not %v", id, h.Host, h.Node, hn)
	}
	w.Cloud.Hosts = slices.Delete(slices.Clone(w.Cloud.Hosts), id, id+1)
	for _, u := range slices.Clone(w.Order) {
		if w.Live[u].Node == hn {
			w.Released(u)
		}
	}
	return h, nil
}

// AddHost records that h joined, after every other host.
func (w *World) AddHost(h engine.Host) {
	w.Cloud.Hosts = append(slices.Clone(w.Cloud.Hosts), h)
}

// Materialise is the cloud snap's state describes: w's cloud with each
// node's usage as snap has it (free disk in whole GB, disk_available_least
// folded into it) and the live instances on their hosts' lists. It fails
// when snap's hosts are not w's, or a free disk is not whole GB.
func (w *World) Materialise(snap *engine.Snapshot) (engine.Cloud, error) {
	c := w.Cloud
	c.Hosts = slices.Clone(w.Cloud.Hosts)
	if snap.Len() != len(c.Hosts) {
		return c, fmt.Errorf("the snapshot has %d hosts, the world %d", snap.Len(), len(c.Hosts))
	}
	on := map[engine.HostNode][]string{}
	for _, u := range w.Order {
		on[w.Live[u].Node] = append(on[w.Live[u].Node], u)
	}
	for id := range c.Hosts {
		h := &c.Hosts[id]
		hn := snap.HostNode(uint32(id))
		if hn != NodeOf(h) {
			return c, fmt.Errorf("host %d is %v in the snapshot, %s/%s in the world", id, hn, h.Host, h.Node)
		}
		u := snap.Usage(uint32(id))
		if u.FreeDiskMB%1024 != 0 {
			return c, fmt.Errorf("host %d: free disk %d MB is not whole GB", id, u.FreeDiskMB)
		}
		h.FreeRAMMB, h.VCPUsUsed, h.NumInstances, h.NumIOOps = u.FreeRAMMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps
		h.FreeDiskGB, h.DiskAvailableLeast = u.FreeDiskMB/1024, nil
		if extra := on[hn]; len(extra) > 0 {
			h.Instances = append(slices.Clone(h.Instances), extra...)
		}
	}
	return c, nil
}

// WithCommittedMembers is req with the members of its group the Store
// committed, and their hosts, in the group, as Nova reads the group from
// its database.
func (w *World) WithCommittedMembers(req engine.Request) engine.Request {
	g := req.InstanceGroup
	if g == nil {
		return req
	}
	full := *g
	full.Members, full.Hosts = slices.Clone(g.Members), slices.Clone(g.Hosts)
	for _, u := range w.Order {
		p := w.Live[u]
		if p.Group != g.UUID {
			continue
		}
		if !slices.Contains(full.Members, u) {
			full.Members = append(full.Members, u)
		}
		if !slices.Contains(full.Hosts, p.Node.Host) {
			full.Hosts = append(full.Hosts, p.Node.Host)
		}
	}
	req.InstanceGroup = &full
	return req
}

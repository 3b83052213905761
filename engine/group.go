package engine

import (
	"iter"
	"slices"

	"github.com/placer/placer/bitmap"
)

// groupState is the server group as the batch changes it: Nova appends
// each chosen host to group.hosts and each placed instance to its host's
// instances.
type groupState struct {
	policy     string
	maxPerHost int
	members    map[string]bool
	hostNames  map[string]int32 // group.hosts, each with its name id (addHost)
	hostsSet   *bitmap.Set      // nodes whose host name is in group.hosts
	count      map[int32]int    // instance key (ironic.go) -> |instances ∩ members|
	added      map[int32][]string
	// addedAt is added by uuid, for the lists past addedScan: where the
	// batch placed each. (Scanning a host's list was quadratic in the
	// instances a host took; a map for every group request cost two
	// allocations.) Made when a list first passes addedScan.
	addedAt map[string]int32
}

// addedScan is how long a host's list of added uuids is scanned.
const addedScan = 16

// add records that the batch placed uuid on instance key nid.
func (g *groupState) add(nid int32, uuid string) {
	l := append(g.added[nid], uuid)
	g.added[nid] = l
	switch {
	case len(l) == addedScan+1:
		if g.addedAt == nil {
			g.addedAt = map[string]int32{}
		}
		for _, u := range l {
			g.addedAt[u] = nid
		}
	case len(l) > addedScan+1:
		g.addedAt[uuid] = nid
	}
}

// placed reports whether the batch placed uuid on instance key nid.
func (g *groupState) placed(nid int32, uuid string) bool {
	l := g.added[nid]
	if len(l) <= addedScan {
		return slices.Contains(l, uuid)
	}
	at, ok := g.addedAt[uuid]
	return ok && at == nid
}

func newGroupState(s *Snapshot, g *InstanceGroup, uuids []string, hosts *bitmap.Set) *groupState {
	gs := &groupState{
		policy: g.Policy, maxPerHost: g.MaxServerPerHost,
		members:   make(map[string]bool, len(g.Members)+len(uuids)),
		hostNames: make(map[string]int32, len(g.Hosts)),
		hostsSet:  hosts,
		count:     map[int32]int{},
		added:     map[int32][]string{},
	}
	if gs.maxPerHost == 0 {
		gs.maxPerHost = 1
	}
	for _, m := range g.Members {
		gs.members[m] = true
	}
	for _, u := range uuids {
		gs.members[u] = true
	}
	for _, h := range g.Hosts {
		gs.addHost(s, h)
	}
	// Members a Store committed count on the host it committed them to
	// (as its commit-time check counts them), whether or not the request
	// lists them, and their hosts join group.hosts (Nova derives it from
	// the members' hosts); the others count where the snapshot lists them.
	placed := s.groupPlaced.members(g.UUID)
	for m := range gs.members {
		if _, ok := placed[m]; ok {
			continue
		}
		for nid := range s.instanceKeys(m) {
			gs.count[nid]++
		}
	}
	for _, at := range placed {
		host, whole := placedOn(at) // on an ironic node: counted nowhere
		if nid := gs.addHost(s, host); nid >= 0 && !whole {
			gs.count[nid]++
		}
	}
	return gs
}

// addHost appends a host name to group.hosts, and returns its name id
// (-1: the snapshot has no node of that host name), looked up once per
// name (many members share a host).
func (g *groupState) addHost(s *Snapshot, name string) int32 {
	if nid, ok := g.hostNames[name]; ok {
		return nid
	}
	nid := int32(-1)
	for id := range s.info.byHost(name).All() {
		nid = s.info.nameOf(id) // one per host name
		g.hostsSet.Add(id)
	}
	g.hostNames[name] = nid
	return nid
}

// hasInstance reports whether uuid is among the instances of instance
// key nid (ironic.go: a host name, or an ironic node).
func (b *batch) hasInstance(nid int32, uuid string) bool {
	if b.s.info.instHas(nid, uuid) {
		return true
	}
	return b.group != nil && b.group.placed(nid, uuid)
}

// The server group filters, on the group's state above.

// antiAffinityPasses is ServerGroupAntiAffinityFilter on host id: a host
// running the instance's own uuid passes; another passes while its host
// name holds fewer members than max_server_per_host.
func antiAffinityPasses(b *batch, id uint32) (bool, error) {
	g := b.group
	if g == nil || g.policy != PolicyAntiAffinity {
		return true, nil
	}
	nid := b.s.info.instKey(id)
	if b.hasInstance(nid, b.uuid) {
		return true, nil
	}
	return g.count[nid] < g.maxPerHost, nil
}

// affinityKeepsAll reports that ServerGroupAffinityFilter passes every
// host: no affinity group, or one with no hosts yet.
func affinityKeepsAll(b *batch) bool {
	g := b.group
	return g == nil || g.policy != PolicyAffinity || len(g.hostNames) == 0
}

// affinityWhole keeps the hosts of set in the affinity group's hosts,
// unless affinityKeepsAll.
func affinityWhole(b *batch, set *bitmap.Set) bool {
	if affinityKeepsAll(b) {
		return false
	}
	return set.And(b.group.hostsSet)
}

// antiAffinityKeepsAll reports that ServerGroupAntiAffinityFilter passes
// every host: no anti-affinity group.
func antiAffinityKeepsAll(b *batch) bool {
	g := b.group
	return g == nil || g.policy != PolicyAntiAffinity
}

// antiAffinityApply is antiAffinityPasses over a whole set: only the host
// names already holding members can fail, so only their nodes are tested
// (removals commute: the map's order does not matter).
func antiAffinityApply(b *batch, set *bitmap.Set) error {
	if antiAffinityKeepsAll(b) {
		return nil
	}
	g := b.group
	if g.maxPerHost <= 0 { // every host can fail
		return applyHost(b, set, antiAffinityPasses)
	}
	var one [1]uint32
	for nid, c := range g.count {
		if c >= g.maxPerHost && !b.hasInstance(nid, b.uuid) {
			for _, id := range b.s.info.instNodes(nid, &one) {
				set.Remove(id)
			}
		}
	}
	return nil
}

// instanceKeys yields the instance keys of the dicts uuid is in: where a
// Store committed or released it since the lists were built
// (placedSince), else where the lists hold it.
func (s *Snapshot) instanceKeys(uuid string) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		if host, released, ok := s.placedSince.placedSinceOf(uuid); ok {
			if key, on := s.info.placedKey(host); !released && on {
				yield(key)
			}
			return
		}
		for nid := range s.info.instances.NamesOf(uuid) {
			if !yield(nid) {
				return
			}
		}
	}
}

// listed reports whether s's instance lists hold uuid (on any host).
func (s *Snapshot) listed(uuid string) bool {
	for range s.info.instances.NamesOf(uuid) {
		return true
	}
	return false
}

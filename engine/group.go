package engine

import (
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
)

// groupState is the server group as the batch changes it: Nova appends
// each chosen host to group.hosts and each placed instance to its host's
// instances.
type groupState struct {
	policy     string
	maxPerHost int
	members    map[string]bool
	hostNames  map[string]bool // group.hosts
	hostsSet   *bitmap.Set     // nodes whose host name is in group.hosts
	count      map[int32]int   // host name id -> |instances ∩ members|
	added      map[int32][]string
}

func newGroupState(s *Snapshot, g *InstanceGroup, uuids []string, hosts *bitmap.Set) *groupState {
	gs := &groupState{
		policy: g.Policy, maxPerHost: g.MaxServerPerHost,
		members:   make(map[string]bool, len(g.Members)+len(uuids)),
		hostNames: make(map[string]bool, len(g.Hosts)),
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
	placed := s.groupPlaced[g.UUID]
	for m := range gs.members {
		if _, ok := placed[m]; ok {
			continue
		}
		for nid := range s.info.instances.NamesOf(m) {
			gs.count[nid]++
		}
	}
	for _, host := range placed {
		for id := range s.info.byHostLower(strings.ToLower(host)).All() {
			if s.info.hostOf(id) == host {
				gs.count[s.info.nameOf(id)]++
				break
			}
		}
		gs.addHost(s, host)
	}
	return gs
}

// addHost appends a host name to group.hosts.
func (g *groupState) addHost(s *Snapshot, name string) {
	if g.hostNames[name] {
		return
	}
	g.hostNames[name] = true
	for id := range s.info.byHostLower(strings.ToLower(name)).All() {
		if s.info.hostOf(id) == name {
			g.hostsSet.Add(id)
		}
	}
}

// hasInstance reports whether uuid is among host name nid's instances.
func (b *batch) hasInstance(nid int32, uuid string) bool {
	if b.s.info.instances.Has(nid, uuid) {
		return true
	}
	return b.group != nil && slices.Contains(b.group.added[nid], uuid)
}

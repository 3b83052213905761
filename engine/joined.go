package engine

import "reflect"

// The nodes that joined a Store's cloud after its start, and when: a
// node removed and added again under its name, or whose record an
// external rebuild changed, is another host for the plans made before
// (Store.joined; commit.go refuses their placements on it as
// HostRemoved).

// noteJoinedLocked records in s.joined the nodes of snap (built from c
// and in) that join the cloud at its version: those in.derive does not
// derive from the snapshot it replaces, or, built from scratch (an
// external rebuild), those in.changed lists. The nodes snap no longer
// holds are forgotten.
func (s *Store) noteJoinedLocked(c Cloud, snap *Snapshot, in buildInput) {
	join := func(hn HostNode) {
		if s.joined == nil {
			s.joined = map[HostNode]uint64{}
		}
		s.joined[hn] = snap.version
	}
	if d := in.derive; d != nil {
		for i := range c.Hosts {
			if d.oldID(i) < 0 {
				join(HostNode{c.Hosts[i].Host, nodeName(&c.Hosts[i])})
			}
		}
	}
	for _, hn := range in.changed {
		join(hn)
	}
	for hn := range s.joined {
		if _, ok := snap.info.byHostNode(hn); !ok {
			delete(s.joined, hn)
		}
	}
}

// changedHosts returns the nodes of c whose static record (what is not
// usage: the instances, stats, metrics and counters a report changes)
// is not the one prev holds under their name, or that prev lacks.
func changedHosts(prev, c *Cloud) []HostNode {
	static := func(h Host) Host {
		h.FreeRAMMB, h.VCPUsUsed, h.FreeDiskGB, h.DiskAvailableLeast = 0, 0, 0, nil
		h.NumInstances, h.NumIOOps, h.FailedBuilds = 0, 0, 0
		h.Stats, h.Metrics, h.Instances = nil, nil, nil
		return h
	}
	old := make(map[HostNode]*Host, len(prev.Hosts))
	for i := range prev.Hosts {
		h := &prev.Hosts[i]
		old[HostNode{h.Host, nodeName(h)}] = h
	}
	changed := []HostNode{}
	for i := range c.Hosts {
		h := &c.Hosts[i]
		hn := HostNode{h.Host, nodeName(h)}
		if p, ok := old[hn]; !ok || !reflect.DeepEqual(static(*p), static(*h)) {
			changed = append(changed, hn)
		}
	}
	return changed
}

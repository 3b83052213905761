package engine

import "slices"

// A snapshot's instance lists (hostInfo.instances) are the cloud's plus
// those a Store had committed when the lists were built; a rebuild builds
// them again. Nova's host manager learns of an instance built, or gone,
// from its compute node soon after, so a later request's same_host and
// different_host hints find it there. Snapshot.placedSince holds what
// changed since the lists were built, for those lookups by uuid: each
// instance committed since, at the host name it was committed on, and
// each one released since (releasedMark), whether the lists hold it or
// not. The server-group rules look a request's listed members up the
// same way when it is kept (a member the Store committed outside the
// group, a released one; the members it committed in the group are
// groupPlaced's). It is a groupTable keyed by the instance's uuid (one
// member, the instance itself), copy-on-write as groupPlaced is, and kept
// only when SameHostFilter or DifferentHostFilter is enabled
// (tracksPlaced): kept for every configuration, its notes made the
// uniform Scheduler stream 0.68 times as fast (paired, AMD EPYC), a map
// and a trie path per instance committed under the Store's mutex.
// An instance on an ironic node is in no list (its node's instance dict
// is new at every request, ironic.go), so it is not noted either.
//
// JsonFilter's $instances and a capability walk through a host's
// instances still read the lists (docs/concurrency.md, "Known limits").

// releasedMark is placedSince's value for an instance released since the
// lists were built (no host name is a NUL alone).
const releasedMark = "\x00"

// tracksPlaced reports whether snapshots of a store of cfg keep
// placedSince: whether the hints' filters, which look instances up by
// uuid, are enabled.
func tracksPlaced(cfg *Config) bool {
	f := cfg.LoadFilters()
	return slices.Contains(f, SameHostFilter) || slices.Contains(f, DifferentHostFilter)
}

// placedKey is the instance key (ironic.go) of the dict a Store's
// committed instance on host name host is in: that of the name's nodes
// that are not ironic (-1, false: the snapshot has none).
func (info *hostInfo) placedKey(host string) (int32, bool) {
	for id := range info.byHost(host).All() {
		if !info.isIronic(id) {
			return info.nameOf(id), true
		}
	}
	return -1, false
}

// notePlaced is t with uuid committed on host name host since the lists
// were built (cur and parent as setGroupPlaced takes them).
func notePlaced(cur, parent *groupTable, uuid, host string) *groupTable {
	return setGroupPlaced(cur, parent, uuid, uuid, host)
}

// noteReleased is t with uuid released since the lists were built:
// marked released when the lists hold it (listed), else its note taken
// out (it was committed since), so that the notes never outgrow the
// committed instances and the released ones the lists still hold.
func noteReleased(cur, parent *groupTable, uuid string, listed bool) *groupTable {
	if !listed {
		return setGroupPlaced(cur, parent, uuid, uuid, "")
	}
	return setGroupPlaced(cur, parent, uuid, uuid, releasedMark)
}

// placedSinceOf says where uuid is by t, a snapshot's placedSince: on
// host name host, nowhere (released), or, ok false, as the snapshot's
// lists say.
func (t *groupTable) placedSinceOf(uuid string) (host string, released, ok bool) {
	at, ok := t.members(uuid)[uuid]
	if !ok {
		return "", false, false
	}
	if at == releasedMark {
		return "", true, true
	}
	return at, false, true
}

package engine

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/placer/placer/bitmap"
)

// Snapshot is an immutable, versioned view of a cloud: the columns of host
// state the filters and weighers read, cut into shards, plus the static
// per-host data and the inverted indexes of categorical attributes.
//
// Invariants:
//   - a Snapshot is never modified after NewSnapshot returns; PlaceBatch
//     keeps its consumption in a private overlay, so any number of
//     goroutines may place against one Snapshot at once;
//   - host ids are dense, 0..Len()-1, in the order of Cloud.Hosts;
//   - shard k holds hosts [k*bitmap.ShardSize, (k+1)*bitmap.ShardSize);
//   - every per-aggregate override (allocation ratios, io-ops and instance
//     limits, weigher multipliers) is already resolved into a per-host
//     column, with Nova's rule (minimum over the host's aggregates, else
//     the host's or the configured value).
type Snapshot struct {
	version uint64
	// store is the id of the Store that published the snapshot (one of
	// its own for a bare NewSnapshot's; Store.Preview's temporary store's
	// for a preview): its plans carry it (Plan.store), and Commit refuses
	// those of another store's snapshots.
	store uint64
	cfg   Config
	// chain and weighers are cfg's, resolved once: the filter chain in
	// order, as indexes in FilterCatalogue (a batch takes the filters
	// from the catalogue, filterTable), and the weighers' indexes in
	// WeigherCatalogue. Shared, read only, by every batch.
	chain    []uint8
	weighers []int
	// rules are the enabled resource filters' rules, in filter order.
	rules  []*resourceRule
	n      int
	shards []*shard
	info   *hostInfo
	// mults summarises each weigher's multipliers over the hosts.
	mults multipliers
	// groupPlaced lists, per server group, the members a Store committed
	// (instance uuid -> host name), so that the planner counts them as the
	// Store's commit-time check does. Copy-on-write: never modified once
	// the snapshot is published (grouptable.go).
	groupPlaced *groupTable
	// placedSince lists the instances a Store committed or released since
	// the instance lists were built, by uuid (placedsince.go); nil unless
	// tracksPlaced. Copy-on-write as groupPlaced.
	placedSince *groupTable
	// tracksPlaced is tracksPlaced(&cfg), resolved once.
	tracksPlaced bool
	// delta is the usage of the hosts Store commits changed since their
	// shards were copied and of those the int32 columns cannot hold (nil:
	// none); see usageDelta.
	delta *usageDelta
	// pool keeps PlaceBatch scratch memory between batches (scratch.go);
	// every snapshot has its own.
	pool *scratchPool
}

var snapshotVersions atomic.Uint64

// Version is the snapshot's version: distinct snapshots built in one
// process have distinct versions.
func (s *Snapshot) Version() uint64 { return s.version }

// Len is the number of hosts.
func (s *Snapshot) Len() int { return s.n }

// Config returns the snapshot's scheduler configuration: a copy, its
// slices included, so that a caller changing it changes nothing the
// snapshot (or its resolved filter chain) holds.
func (s *Snapshot) Config() Config { return s.cfg.clone() }

// HostNode returns the host and node names of host id, in strings of
// their own (see ownNames): keeping them keeps no snapshot's memory. It
// panics when id >= s.Len().
func (s *Snapshot) HostNode(id uint32) HostNode {
	s.checkID(id)
	host, node := ownNames(s.info.hostOf(id), s.info.nodeOf(id))
	return HostNode{Host: host, Node: node}
}

// checkID panics, naming the range, when id is no host of s: the last
// shard's columns run past s.Len(), and would answer for a host that
// does not exist.
func (s *Snapshot) checkID(id uint32) {
	if int(id) >= s.n {
		panic(fmt.Sprintf("engine: host id %d out of range [0, %d)", id, s.n))
	}
}

// at returns the shard and offset of host id.
func (s *Snapshot) at(id uint32) (*shard, int) {
	return s.shards[id>>bitmap.ShardBits], int(id & (bitmap.ShardSize - 1))
}

// derive returns the snapshot a Store publishes after s, before the caller
// changes it: a copy of s, field for field, with its own version, its own
// scratch pool and its own copy of the shards' slice (so that shards may
// be replaced in it); every other field is shared with s. A field added to
// Snapshot is carried over unless derive renews it here
// (TestDeriveCopiesEveryField).
func (s *Snapshot) derive() *Snapshot {
	d := *s
	d.version = snapshotVersions.Add(1)
	d.pool = &scratchPool{}
	d.shards = slices.Clone(s.shards)
	return &d
}

package engine

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/nova"
)

// batch is the private state of one PlaceBatch call: the request in the
// forms the filters need, the overlay of consumed resources, the group
// bookkeeping and the hosts still in play. The snapshot is only read.
type batch struct {
	ctx context.Context
	s   *Snapshot
	cfg *Config
	req *Request

	index int    // instance being placed
	uuid  string // its uuid

	// The request, pre-digested.
	claim    Claim // what each instance consumes and the resource filters ask for
	img      nova.ImageRequest
	query    *nova.Query
	group    *groupState
	filters  []*filterImpl // the snapshot's: read only
	weighers []int         // active weigher indexes, in config order (the snapshot's: read only)

	// Overlay: current resources of the hosts consumed in this batch, and
	// of those in the snapshot's usage delta.
	touched    *bitmap.Set
	touchedIdx map[uint32]int
	touchedIDs []uint32 // in consumption order; res[i] is touchedIDs[i]'s
	res        []hostRes

	alive *bitmap.Set // hosts in play
	// aliveWords lists words of alive that filterNext changed since the
	// ranker last read alive (ranking.update); aliveAll says that any word
	// may have changed. The ranker resets both (aliveSynced).
	aliveWords []uint32
	aliveAll   bool
	prev       *bitmap.Set // the hosts in play for the previous instance
	forced     bool        // force_hosts/force_nodes: no filter runs

	rng        *rand.Rand
	w          weighScratch
	rk         ranking
	candidates int // hosts that passed the filters for this instance

	sc        *scratch
	taken     []*bitmap.Set
	takenBuf  [4]*bitmap.Set // taken's first backing array
	takenCols [][]float64
	keepSets  bool // sets escape to the caller (FilterHosts): never pooled
}

// hostRes is the part of a host's state that consumption changes.
type hostRes struct {
	freeRAM, freeDiskMB, vcpusUsed, numInstances, numIOOps int64
}

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

func newBatch(ctx context.Context, s *Snapshot, req *Request, p parsedRequest) *batch {
	b := &batch{
		ctx: ctx, s: s, cfg: &s.cfg, req: req,
		claim:      claimOf(req),
		touchedIdx: map[uint32]int{},
		rng:        newRNG(&s.cfg),
	}
	b.sc = s.getScratch()
	b.taken = b.takenBuf[:0]
	b.touched = b.set()
	b.seedOverlay()
	b.img, b.query = p.img, p.query
	if g := req.InstanceGroup; g != nil {
		b.group = newGroupState(s, g, req.InstanceUUIDs, b.set())
	}
	b.filters, b.weighers = s.filters, s.weighers
	return b
}

// newRNG is a batch's generator: seeded by the configuration alone, so
// that a plan is a function of the snapshot and the request.
func newRNG(cfg *Config) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(cfg.Seed), 0x9e3779b97f4a7c15))
}

// seedOverlay starts the (empty) overlay with the snapshot's delta (Store
// commits, usage past the int32 columns): its hosts' columns are not their
// state.
func (b *batch) seedOverlay() {
	if d := b.s.delta; d != nil {
		for i, id := range d.ids {
			b.touchedIdx[id] = len(b.res)
			b.res = append(b.res, d.res[i])
			b.touchedIDs = append(b.touchedIDs, id)
			b.touched.Add(id)
		}
	}
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

// aliveSynced notes that the ranker has read every change of alive.
func (b *batch) aliveSynced() { b.aliveWords, b.aliveAll = b.aliveWords[:0], false }

// cur returns host id's current resources (the overlay's, else the
// snapshot's).
func (b *batch) cur(id uint32) hostRes {
	if b.touched.Has(id) {
		return b.res[b.touchedIdx[id]]
	}
	sh, j := b.s.at(id)
	return sh.usageAt(j)
}

// consume applies Nova's consume_from_request and _consume_selected_host to
// host id in the overlay, and returns the hosts whose filter results or
// weights may have changed.
func (b *batch) consume(id uint32, uuid string, dirty []uint32) []uint32 {
	r := consumeClaim(b.cur(id), &b.claim)
	if k, ok := b.touchedIdx[id]; ok {
		b.res[k] = r
	} else {
		b.touchedIdx[id] = len(b.res)
		b.res = append(b.res, r)
		b.touchedIDs = append(b.touchedIDs, id)
		b.touched.Add(id)
	}
	dirty = append(dirty, id)
	if g := b.group; g != nil {
		info := b.s.info
		nid := info.nameOf(id)
		g.addHost(b.s, info.hostOf(id))
		if !b.hasInstance(nid, uuid) {
			g.added[nid] = append(g.added[nid], uuid)
			if g.members[uuid] {
				g.count[nid]++
			}
		}
		var one [1]uint32
		for _, other := range info.nodesOf(nid, &one) {
			if other != id {
				dirty = append(dirty, other)
			}
		}
	}
	return dirty
}

// attrs fills h with what getattr(host_state, ...) returns for host id now.
func (b *batch) attrs(id uint32, h *nova.HostAttrs) {
	info := b.s.info
	sh, j := b.s.at(id)
	r := b.cur(id)
	*h = nova.HostAttrs{
		Host: info.hostOf(id), Nodename: info.nodeOf(id),
		CellUUID:  info.cellUUID[info.cell.At(id)],
		FreeRAMMB: r.freeRAM, FreeDiskMB: r.freeDiskMB,
		TotalUsableRAMMB: sh.totalRAM.At(j), TotalUsableDiskGB: sh.totalDiskGB.At(j),
		DiskMBUsed: info.diskMBUsed(id),
		VCPUsTotal: sh.vcpusTotal.At(j), VCPUsUsed: r.vcpusUsed,
		NumInstances: r.numInstances, NumIOOps: r.numIOOps, FailedBuilds: sh.failedBuilds.At(j),
		HypervisorType: info.hvType(id), HypervisorVersion: info.hvVersion(id),
		CPUInfo:            info.cpuInfo(id),
		SupportedInstances: info.supported(id),
		Stats:              info.statsTab[info.stats.At(id)], RAMAllocationRatio: sh.ramRatio.At(j),
		CPUAllocationRatio: sh.cpuRatio.At(j), DiskAllocationRatio: sh.diskRatio.At(j),
		Extras: b, ExtrasID: id,
	}
	// Where it is the node name, it points at h's own Nodename.
	h.HypervisorHostname = info.hvHostname(id, &h.Nodename)
}

// HostUUID is host id's uuid (nova.HostExtras).
func (b *batch) HostUUID(id uint32) string {
	return b.s.info.hostUUID(id)
}

// HostIP is host id's host_ip (nova.HostExtras).
func (b *batch) HostIP(id uint32) *string {
	return b.s.info.hostIP(id)
}

// HostMetrics is host id's metrics (nova.HostExtras).
func (b *batch) HostMetrics(id uint32) map[string]int64 {
	return b.s.info.metrics.Of(id)
}

// HostInstances is host id's instance uuids now: the snapshot's, then
// those of the batch's group placed there (nova.HostExtras).
func (b *batch) HostInstances(id uint32) []string {
	nid := b.s.info.nameOf(id)
	us := b.s.info.instances.Of(nid)
	if b.group != nil {
		us = append(us, b.group.added[nid]...)
	}
	return us
}

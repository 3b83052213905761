package engine

import (
	"math"

	"github.com/placer/placer/bitmap"
)

// A host's usage is what placements consume and compute nodes report
// (hostRes). It lives in three places, each over the one before: a
// shard's int32 columns, the snapshot's usage delta (delta.go) for the
// hosts the columns cannot hold or a Store changed since, and above them
// a commit's pending usage or a batch's overlay, private to the commit or
// the batch.

// hostRes is the part of a host's state that consumption changes.
type hostRes struct {
	freeRAM, freeDiskMB, vcpusUsed, numInstances, numIOOps int64
}

// A shard keeps each usage counter of its hosts in an int32 column (half
// the bytes of the int64 the counters are computed in, for the memory of
// the host state and the bandwidth of the filter passes). Nova's database
// keeps them in 32-bit integer columns too, but a cloud may report, and
// overcommitment may reach, values past them (free_disk_gb * 1024 past
// 2^31 MB): such a host's usage lives in the snapshot's usage delta
// (usageDelta), which every reader consults before the columns, and its
// column entries are never read.

// fitsColumns reports whether the shard columns can hold r.
func (r *hostRes) fitsColumns() bool {
	return fits32(r.freeRAM) && fits32(r.freeDiskMB) && fits32(r.vcpusUsed) &&
		fits32(r.numInstances) && fits32(r.numIOOps)
}

func fits32(x int64) bool { return x >= math.MinInt32 && x <= math.MaxInt32 }

// setUsage makes r host j's usage in the shard's columns and reports
// true, or, when r does not fit them, changes nothing and reports false
// (the host's usage must then be kept in the snapshot's delta).
func (sh *shard) setUsage(j int, r hostRes) bool {
	if !r.fitsColumns() {
		return false
	}
	sh.freeRAM[j], sh.freeDiskMB[j], sh.vcpusUsed[j] = int32(r.freeRAM), int32(r.freeDiskMB), int32(r.vcpusUsed)
	sh.numInstances[j], sh.numIOOps[j] = int32(r.numInstances), int32(r.numIOOps)
	return true
}

// usageAt is host j's usage in the shard's columns (not its usage in a
// snapshot whose delta holds it: see Snapshot.usage).
func (sh *shard) usageAt(j int) hostRes {
	return hostRes{int64(sh.freeRAM[j]), int64(sh.freeDiskMB[j]), int64(sh.vcpusUsed[j]),
		int64(sh.numInstances[j]), int64(sh.numIOOps[j])}
}

// consumeClaim is Nova's consume_from_request on one host's usage: what a
// placement does to its host in a batch's overlay (batch.consume) and what
// a commit does to it in the Store (Store.Commit).
func consumeClaim(r hostRes, c *Claim) hostRes {
	r.freeRAM -= c.MemoryMB
	r.freeDiskMB -= c.DiskMB
	r.vcpusUsed += c.VCPUs
	r.numInstances++
	r.numIOOps++
	return r
}

// consumeOn is consume_from_request on host id of s, whose usage is r: an
// ironic node is consumed whole (free_ram_mb and free_disk_mb 0,
// vcpus_used vcpus_total, the counters unchanged), any other host by the
// claim (consumeClaim).
func (s *Snapshot) consumeOn(id uint32, r hostRes, c *Claim) hostRes {
	if !s.info.isIronic(id) {
		return consumeClaim(r, c)
	}
	sh, j := s.at(id)
	r.freeRAM, r.freeDiskMB, r.vcpusUsed = 0, 0, sh.vcpusTotal.At(j)
	return r
}

// takenBy is what consumeOn took from a host whose usage went from
// before to after, as a Claim (free RAM and disk given up, vCPUs added;
// DiskRequestMB is DiskMB): what giving the instance back returns
// (releaseClaim, with whole set so that the counters stay).
func takenBy(before, after hostRes) Claim {
	disk := before.freeDiskMB - after.freeDiskMB
	return Claim{MemoryMB: before.freeRAM - after.freeRAM, VCPUs: after.vcpusUsed - before.vcpusUsed,
		DiskMB: disk, DiskRequestMB: disk}
}

// releaseOn gives back what claim c took from a host whose usage is r:
// releaseClaim, but for an instance on an ironic node (whole), which gives
// back what it took (takenBy) and leaves the counters alone.
func releaseOn(r hostRes, c *Claim, whole bool) hostRes {
	if !whole {
		return releaseClaim(r, c)
	}
	r.freeRAM += c.MemoryMB
	r.freeDiskMB += c.DiskMB
	r.vcpusUsed -= c.VCPUs
	return r
}

// reported is usage report u of node id as the scheduler holds it: on an
// ironic node num_instances and num_io_ops stay 0 whatever the report
// says, as usageOf reads a node's record (IronicNodeState reads neither).
func (s *Snapshot) reported(id uint32, u HostUsage) HostUsage {
	if s.info.isIronic(id) {
		u.NumInstances, u.NumIOOps = 0, 0
	}
	return u
}

// releaseClaim undoes consumeClaim (an instance deleted). num_io_ops is not
// given back: in Nova it falls when the build task ends, which the compute
// node reports (UpdateHost).
func releaseClaim(r hostRes, c *Claim) hostRes {
	r.freeRAM += c.MemoryMB
	r.freeDiskMB += c.DiskMB
	r.vcpusUsed -= c.VCPUs
	r.numInstances--
	return r
}

// pendingUsage is the running usage of the hosts a commit changes, over
// the usage of the snapshot it is applied to.
//
// Invariants: ids lists the hosts of res, each once, in the order they
// were first set.
type pendingUsage struct {
	ids []uint32
	res map[uint32]hostRes
}

// get returns host id's usage: the pending one, else its usage in snap.
func (p *pendingUsage) get(snap *Snapshot, id uint32) hostRes {
	if r, ok := p.res[id]; ok {
		return r
	}
	return snap.usage(id)
}

// set makes r host id's pending usage.
func (p *pendingUsage) set(id uint32, r hostRes) {
	if _, ok := p.res[id]; !ok {
		p.ids = append(p.ids, id)
	}
	p.res[id] = r
}

// overlay is a batch's usage of the hosts it consumed on and of those in
// its snapshot's usage delta, over the snapshot's columns: a host's usage
// in the batch is its overlay entry when it has one, else its shard's
// columns. The snapshot is never written; everything a placement changes
// lives here, private to the batch.
//
// Invariants: ids lists the overlay's hosts in the order they entered it
// (the snapshot's delta first, then consumption order), each once; res[i]
// is ids[i]'s usage and idx[ids[i]] is i; in holds exactly the hosts of
// ids. idx has an entry per host of the snapshot (the batch's scratch
// memory); those of hosts not in the overlay are left as they were, never
// read, so that emptying the overlay costs nothing per host.
type overlay struct {
	in  *bitmap.Set
	idx []int32
	ids []uint32
	res []hostRes
}

// reset empties the overlay and seeds it with the usage delta d (Store
// commits, usage past the int32 columns; nil: none): its hosts' columns
// are not their state.
func (o *overlay) reset(d *usageDelta) {
	o.ids, o.res = o.ids[:0], o.res[:0]
	o.in.Reset()
	if d == nil {
		return
	}
	// The delta's entries in id order (d.each's), copied in bulk, then
	// indexed: a call of put per entry was 3% of a realistic request.
	if d.recent == nil || len(d.recent.ids) == 0 {
		o.ids, o.res = append(o.ids, d.ids...), append(o.res, d.res...)
	} else {
		r := d.recent // its entries take the place of the base's
		o.ids, o.res = mergeRuns(o.ids, o.res, d.ids, d.res, r.ids, func(i int) hostRes { return r.res[i] }, nil)
	}
	for i, id := range o.ids {
		o.idx[id] = int32(i)
		o.in.Add(id)
	}
}

// has reports whether host id is in the overlay.
func (o *overlay) has(id uint32) bool { return o.in.Has(id) }

// at returns host id's entry, which must be in the overlay.
func (o *overlay) at(id uint32) *hostRes { return &o.res[o.idx[id]] }

// usage returns host id's usage on s with the overlay: its entry, else its
// shard's columns.
func (o *overlay) usage(s *Snapshot, id uint32) hostRes {
	if o.in.Has(id) {
		return o.res[o.idx[id]]
	}
	sh, j := s.at(id)
	return sh.usageAt(j)
}

// set makes r host id's usage.
func (o *overlay) set(id uint32, r hostRes) {
	if o.in.Has(id) {
		o.res[o.idx[id]] = r
		return
	}
	o.put(id, r)
}

// put adds host id, not yet in the overlay, with usage r.
func (o *overlay) put(id uint32, r hostRes) {
	o.idx[id] = int32(len(o.res))
	o.res = append(o.res, r)
	o.ids = append(o.ids, id)
	o.in.Add(id)
}

// raw is column weigher w's raw value for host id on s with the overlay:
// from the overlay's usage for the hosts it holds, else the shard's raw
// column (shard.rawCol).
func (o *overlay) raw(s *Snapshot, w int, id uint32) float64 {
	sh, j := s.at(id)
	if o.in.Has(id) {
		return sh.rawRes(w, j, &o.res[o.idx[id]])
	}
	col := sh.rawCol(w)
	return col.At(j)
}

// The usage of an IronicNodeState (ironic.go) as the snapshot reads it;
// consumeOn, takenBy and releaseOn above change it.

// isIronic reports whether h is an IronicNodeState under cfg
// (IronicHostManager.host_state_cls: hypervisor_type compared exactly).
func isIronic(cfg *Config, h *Host) bool {
	return cfg.HostManager == HostManagerIronic && h.HypervisorType != nil && *h.HypervisorType == HVTypeIronic
}

// usageOf is host h's usage as the scheduler reads it from the compute
// node under cfg: HostState's free_disk_mb is min(free_disk_gb,
// disk_available_least) × 1024 and its counters the node's; an
// IronicNodeState's free_disk_mb is free_disk_gb × 1024 and its
// num_instances and num_io_ops stay 0.
func usageOf(cfg *Config, h *Host) hostRes {
	if isIronic(cfg, h) {
		return hostRes{h.FreeRAMMB, h.FreeDiskGB * 1024, h.VCPUsUsed, 0, 0}
	}
	freeGB := h.FreeDiskGB
	if h.DiskAvailableLeast != nil {
		freeGB = min(freeGB, *h.DiskAvailableLeast)
	}
	return hostRes{h.FreeRAMMB, freeGB * 1024, h.VCPUsUsed, h.NumInstances, h.NumIOOps}
}

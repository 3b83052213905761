package engine

import (
	"math"
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/kernels"
)

// Nova's resource filters (RamFilter, CoreFilter, DiskFilter, IoOpsFilter,
// NumInstancesFilter and their Aggregate* variants, and Queens'
// ExactRamFilter, ExactCoreFilter and ExactDiskFilter) are the rules a
// placement and a commit must both hold. Each is one resourceRule, the
// one source of its arithmetic: the filter's test of one host and its
// column pass (filters.go), the Store's commit-time re-check (claimFits),
// the capacity a host offers (Snapshot.Capacity) and the limits Nova
// leaves in HostState.limits (limitInto) all read the rules below.

// resource is what a resource rule checks.
type resource uint8

// The resources of Nova's resource filters.
const (
	resRAM       resource = iota + 1 // free_ram_mb against total × ratio
	resCore                          // vcpus_used against total × ratio
	resDisk                          // free_disk_mb against total × ratio
	resIOOps                         // num_io_ops below a limit
	resInstances                     // num_instances below a limit
	resExactRAM                      // free_ram_mb equal to the request
	resExactCore                     // vcpus_total - vcpus_used equal to the request
	resExactDisk                     // free_disk_mb equal to the request, swap included
)

// resourceRule is one resource filter: the resource it checks and where
// its ratio or limit comes from. A plain filter reads the host's own
// ratio (else the configured one) or the configured limit; its Aggregate*
// variant the aggregates' minimum, resolved per host when the snapshot is
// built.
type resourceRule struct {
	name string // the filter's
	res  resource
	// ratio is the allocation ratio column of a RAM, core or disk rule.
	ratio func(sh *shard) *kernels.Coded[float64]
	// limits is the per-host limit column of an Aggregate* io-ops or
	// instance rule; nil for the plain ones, which read the
	// configuration (configLimit).
	limits func(sh *shard) *kernels.Coded[int64]
	// aggKey is the aggregate metadata key an Aggregate* rule reads its
	// ratio or limit from; "" for the others.
	aggKey string
	// twin is the other rule of a ratio pair (Twin ratio rules, below),
	// slot this rule's place in a shard's twinMasks; "" for the others.
	twin string
	slot int
}

// withTwins pairs the ratio rules (Twin ratio rules, below) and returns
// rules.
func withTwins(rules map[string]*resourceRule) map[string]*resourceRule {
	for slot, pair := range [][2]string{{RamFilter, AggregateRamFilter}, {CoreFilter, AggregateCoreFilter}, {DiskFilter, AggregateDiskFilter}} {
		a, b := rules[pair[0]], rules[pair[1]]
		a.twin, a.slot = pair[1], 2*slot
		b.twin, b.slot = pair[0], 2*slot+1
	}
	return rules
}

// resourceRules are the resource filters by name.
var resourceRules = withTwins(map[string]*resourceRule{
	RamFilter: {name: RamFilter, res: resRAM,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.ramRatio }},
	AggregateRamFilter: {name: AggregateRamFilter, aggKey: "ram_allocation_ratio", res: resRAM,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.aggRAMRatio }},
	CoreFilter: {name: CoreFilter, res: resCore,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.cpuRatio }},
	AggregateCoreFilter: {name: AggregateCoreFilter, aggKey: "cpu_allocation_ratio", res: resCore,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.aggCPURatio }},
	DiskFilter: {name: DiskFilter, res: resDisk,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.diskRatio }},
	AggregateDiskFilter: {name: AggregateDiskFilter, aggKey: "disk_allocation_ratio", res: resDisk,
		ratio: func(sh *shard) *kernels.Coded[float64] { return &sh.aggDiskRatio }},
	IoOpsFilter: {name: IoOpsFilter, res: resIOOps},
	AggregateIoOpsFilter: {name: AggregateIoOpsFilter, aggKey: "max_io_ops_per_host", res: resIOOps,
		limits: func(sh *shard) *kernels.Coded[int64] { return &sh.maxIOOps }},
	NumInstancesFilter: {name: NumInstancesFilter, res: resInstances},
	AggregateNumInstancesFilter: {name: AggregateNumInstancesFilter, aggKey: "max_instances_per_host", res: resInstances,
		limits: func(sh *shard) *kernels.Coded[int64] { return &sh.maxInstances }},
	// The Exact* filters (queens-eol) read no ratio: their limits are the
	// totals.
	ExactRamFilter:  {name: ExactRamFilter, res: resExactRAM},
	ExactCoreFilter: {name: ExactCoreFilter, res: resExactCore},
	ExactDiskFilter: {name: ExactDiskFilter, res: resExactDisk},
})

// configLimit is the configured limit of a plain io-ops or instance rule.
func (r *resourceRule) configLimit(cfg *Config) int64 {
	if r.res == resIOOps {
		return cfg.MaxIoOpsPerHost
	}
	return cfg.MaxInstancesPerHost
}

// limit is the io-ops or instance limit of host j of sh.
func (r *resourceRule) limit(sh *shard, j int, cfg *Config) int64 {
	if r.limits != nil {
		return r.limits(sh).At(j)
	}
	return r.configLimit(cfg)
}

// fits reports whether one instance claiming c fits host j of sh, whose
// usage is u: Nova's host_passes.
func (r *resourceRule) fits(sh *shard, j int, u *hostRes, c *Claim, cfg *Config) bool {
	switch r.res {
	case resRAM:
		return kernels.RAMPasses(sh.totalRAM.At(j), u.freeRAM, r.ratio(sh).At(j), c.MemoryMB)
	case resCore:
		return kernels.CorePasses(sh.vcpusTotal.At(j), u.vcpusUsed, r.ratio(sh).At(j), c.VCPUs)
	case resDisk:
		return kernels.DiskPasses(sh.totalDiskGB.At(j), u.freeDiskMB, r.ratio(sh).At(j), c.DiskRequestMB)
	case resIOOps:
		return u.numIOOps < r.limit(sh, j, cfg)
	case resExactRAM:
		return c.MemoryMB == u.freeRAM
	case resExactCore:
		total := sh.vcpusTotal.At(j)
		return total != 0 && c.VCPUs == total-u.vcpusUsed
	case resExactDisk:
		return c.DiskRequestMB == u.freeDiskMB
	}
	return u.numInstances < r.limit(sh, j, cfg)
}

// pass clears in words (one shard of a candidate set) the bits of the
// hosts of sh that fail, as fits judges them on the shard's usage columns
// (not a batch's overlay): one column kernel per rule.
func (r *resourceRule) pass(sh *shard, c *Claim, cfg *Config, words []uint64) {
	switch r.res {
	case resRAM:
		kernels.RAMPass(words, &sh.totalRAM, sh.freeRAM, r.ratio(sh), c.MemoryMB)
	case resCore:
		kernels.CorePass(words, &sh.vcpusTotal, sh.vcpusUsed, r.ratio(sh), c.VCPUs)
	case resDisk:
		kernels.DiskPass(words, &sh.totalDiskGB, sh.freeDiskMB, r.ratio(sh), c.DiskRequestMB)
	case resExactRAM:
		equalPass(words, sh.freeRAM, c.MemoryMB)
	case resExactDisk:
		equalPass(words, sh.freeDiskMB, c.DiskRequestMB)
	case resExactCore:
		exactCorePass(words, sh, c.VCPUs)
	default:
		counter := sh.numIOOps
		if r.res == resInstances {
			counter = sh.numInstances
		}
		if r.limits != nil {
			kernels.BelowPass(words, counter, 0, r.limits(sh))
			return
		}
		kernels.BelowPass(words, counter, r.configLimit(cfg), nil)
	}
}

// claimFits re-runs the enabled resource filters for one instance of c on
// host id whose current usage is r: what a commit checks on a host that
// changed since the plan was made. It returns the first failing filter's
// name.
func (s *Snapshot) claimFits(id uint32, r hostRes, c *Claim) (bool, string) {
	sh, j := s.at(id)
	for _, rule := range s.rules {
		if !rule.fits(sh, j, &r, c, &s.cfg) {
			return false, rule.name
		}
	}
	return true, ""
}

// equalPass clears in words the bits of the hosts whose value in col is
// not want (an Exact* filter on a usage column).
func equalPass(words []uint64, col []int32, want int64) {
	lo, hi := int32(1), int32(0) // lo > hi: every host fails
	if fits32(want) {
		lo, hi = int32(want), int32(want)
	}
	kernels.RangePass(words, col, lo, hi, false)
}

// exactCorePass clears in words the bits of the hosts of sh failing
// ExactCoreFilter for vcpus: no vcpus_total, or vcpus_total - vcpus_used
// not vcpus.
func exactCorePass(words []uint64, sh *shard, vcpus int64) {
	for wi, w := range words {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			w &= w - 1
			j := wi*64 + t
			if total := sh.vcpusTotal.At(j); total == 0 || vcpus != total-int64(sh.vcpusUsed[j]) {
				words[wi] &^= 1 << t
			}
		}
	}
}

// limitInto sets in l what the rule leaves in HostState.limits for host
// j of sh when it passed: RAM, disk and core rules set their key (nothing
// else does). The Exact* rules set the totals, without a ratio, "so that
// if multiple instances are scheduled to a single host, then all after
// the first will fail in the claim" (exact_ram_filter.py).
func (r *resourceRule) limitInto(l *Limits, sh *shard, j int) {
	switch r.res {
	case resRAM:
		l.Set |= HasMemoryMB
		l.MemoryMB = float64(sh.totalRAM.At(j)) * r.ratio(sh).At(j)
	case resDisk:
		l.Set |= HasDiskGB
		l.DiskGB = float64(sh.totalDiskGB.At(j)*1024) * r.ratio(sh).At(j) / 1024
	case resCore:
		if t := float64(sh.vcpusTotal.At(j)) * r.ratio(sh).At(j); sh.vcpusTotal.At(j) != 0 && t > 0 {
			l.Set |= HasVCPU
			l.VCPU = t
		}
	case resExactRAM:
		l.Set |= HasMemoryMB
		l.MemoryMB = float64(sh.totalRAM.At(j))
	case resExactDisk:
		l.Set |= HasDiskGB
		l.DiskGB = float64(sh.totalDiskGB.At(j))
	case resExactCore:
		l.Set |= HasVCPU
		l.VCPU = float64(sh.vcpusTotal.At(j))
	}
}

// Twin ratio rules. RamFilter and AggregateRamFilter (and the core and
// disk pairs) check one inequality under two allocation-ratio columns,
// the host's own and the aggregates' minimum. For ratios finite and
// positive the check passes more hosts as the ratio grows (the limit is
// total x ratio, rounded monotonically), so once one of a pair has run on
// a candidate set, the other can only remove the hosts whose ratio under
// it is not at least the first one's: a pass over those alone (a few
// aggregates lower a ratio; most hosts have none or raise it). The rich
// filter set runs both of every pair.

// twinNeed is the hosts of sh that rule r (one of a twin pair) must judge
// after its twin passed them: those whose ratio under r is not known to be
// at least the twin's (NaN, infinite or not positive ratios included).
func (sh *shard) twinNeed(r *resourceRule) []uint64 {
	tm := sh.twins
	tm.once[r.slot].Do(func() {
		mine, other := r.ratio(sh), resourceRules[r.twin].ratio(sh)
		var w []uint64
		for j := range sh.hostCount() {
			if a, b := mine.At(j), other.At(j); a >= b && b > 0 && !math.IsInf(a, 1) {
				continue
			}
			if w == nil {
				w = make([]uint64, (sh.hostCount()+63)/64)
			}
			w[j>>6] |= 1 << (j & 63)
		}
		tm.words[r.slot] = w
	})
	return tm.words[r.slot]
}

// passAfterTwin is pass for a set whose hosts all passed r's twin: it
// judges only the hosts twinNeed names.
func (r *resourceRule) passAfterTwin(sh *shard, c *Claim, cfg *Config, words []uint64) {
	need := sh.twinNeed(r)
	if need == nil {
		return
	}
	var buf [bitmap.ShardWords]uint64
	t := buf[:len(words)]
	for i := range t {
		t[i] = words[i] & need[i]
	}
	r.pass(sh, c, cfg, t)
	for i := range words {
		words[i] &^= need[i] &^ t[i]
	}
}

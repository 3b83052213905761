package engine

import (
	"context"
	"math"
	"math/bits"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine/internal/hostcols"
	"github.com/placer/placer/internal/kernels"
	"github.com/placer/placer/internal/nova"
)

// Static keys: a host's value of the static attributes a filter reads,
// as a small key, so that an outcome that depends on those values alone
// is judged once per distinct key (staticVerdict), not once per host.

// keyParts names the static values a host's outcome depends on, one bit
// each. partHost means the host itself (its names, uuid, host_ip...):
// the outcome is judged host by host.
type keyParts uint16

const (
	partHost keyParts = 1 << iota
	partHVModel
	partSig
	partStats
	partCell
	partTotalRAM
	partTotalDisk
	partVCPUs
	partFailed
	partRAMRatio
	partCPURatio
	partDiskRatio
	partDiskUsed
)

// maxKeyParts is the most parts a hostKey holds; an outcome that depends
// on more is judged host by host.
const maxKeyParts = 4

// hostKey is a host's values of some keyParts, in part order.
type hostKey [maxKeyParts]uint64

// staticAttrParts gives the part each static attribute of the host state
// (nova.AttrStatic) is read from; 0 for a value every host shares. A
// static attribute missing here is judged host by host.
var staticAttrParts = map[string]keyParts{
	"host": partHost, "nodename": partHost, "uuid": partHost, "cell_uuid": partCell,
	"total_usable_ram_mb": partTotalRAM, "total_usable_disk_gb": partTotalDisk,
	"disk_mb_used": partDiskUsed, "vcpus_total": partVCPUs, "failed_builds": partFailed,
	"hypervisor_type": partHVModel, "hypervisor_version": partHVModel, "cpu_info": partHVModel,
	"hypervisor_hostname": partHost, "supported_instances": partSig, "host_ip": partHost,
	"stats": partStats, "ram_allocation_ratio": partRAMRatio,
	"cpu_allocation_ratio": partCPURatio, "disk_allocation_ratio": partDiskRatio,
	"metrics": partHost, "aggregates": partHost, "service": partHost, "_lock_name": partHost,
	"limits": 0, "pci_stats": 0, "numa_topology": 0, "updated": 0,
}

// attrParts is the part attribute name of the host state is read from,
// for a static attribute (nova.AttrStatic); a missing attribute reads
// nothing (0).
func attrParts(name string) keyParts {
	switch nova.AttrKindOf(name) {
	case nova.AttrStatic:
		if p, ok := staticAttrParts[name]; ok {
			return p
		}
		return partHost
	case nova.AttrMissing:
		return 0
	}
	panic("engine: attrParts of a changing attribute " + name)
}

// hostKey returns host id's values of parts (which must not hold partHost
// and at most maxKeyParts parts).
func (b *batch) hostKey(parts keyParts, id uint32) hostKey {
	info := b.s.info
	var k hostKey
	i := 0
	for p := parts; p != 0; p &= p - 1 {
		var v uint64
		switch bit := p & -p; bit {
		case partHVModel:
			v = info.hvModel.At(id)
		case partSig:
			v = info.hvSig.At(id)
		case partStats:
			v = info.stats.At(id)
		case partCell:
			v = info.cell.At(id)
		case partDiskUsed:
			v = uint64(info.diskMBUsed(id))
		default:
			sh, j := b.s.at(id)
			switch col := sh.codedPart(bit); {
			case col != nil:
				v = uint64(col.At(j))
			case bit == partRAMRatio:
				v = math.Float64bits(sh.ramRatio.At(j))
			case bit == partCPURatio:
				v = math.Float64bits(sh.cpuRatio.At(j))
			case bit == partDiskRatio:
				v = math.Float64bits(sh.diskRatio.At(j))
			}
		}
		k[i] = v
		i++
	}
	return k
}

// outcome is a filter's outcome on one host: passes, or the exception
// Nova raises (err).
type outcome struct {
	passes bool
	err    error
}

// mark adds host id to raise or pass by o.
func (o outcome) mark(id uint32, pass, raise *bitmap.Set) {
	switch {
	case o.err != nil:
		raise.Add(id)
	case o.passes:
		pass.Add(id)
	}
}

// staticVerdict is the verdict of eval, an outcome that depends on
// nothing but the static values parts names (eval(id) judges host id),
// memoised under key: eval runs once per distinct combination of codes
// when every part is dictionary-coded (comboVerdictInto), else once per
// distinct hostKey in each shard, or once per host when parts holds
// partHost or too many parts. lead, when not nil, tells of a host that
// its outcome depends on its value of parts' lowest part alone (see
// comboVerdictInto).
func staticVerdict(b *batch, key string, parts keyParts, eval func(id uint32) (bool, error), lead func(id uint32) bool) *verdict {
	return memoVerdict(b, key, func(pass, raise *bitmap.Set) {
		staticVerdictInto(b, pass, raise, parts, eval, lead)
	})
}

// staticVerdictInto is staticVerdict's build, into empty pass and raise.
func staticVerdictInto(b *batch, pass, raise *bitmap.Set, parts keyParts, eval func(id uint32) (bool, error), lead func(id uint32) bool) {
	if parts&partHost != 0 || bits.OnesCount16(uint16(parts)) > maxKeyParts {
		forHosts(b, func() struct{} { return struct{}{} }, func(_ struct{}, id uint32) {
			ok, err := eval(id)
			outcome{ok, err}.mark(id, pass, raise)
		})
		return
	}
	if cols, total, ok := b.codedParts(parts); ok {
		comboVerdictInto(b, pass, raise, cols, total, eval, lead)
		return
	}
	if parts.shardCoded() {
		shardCodeVerdictInto(b, pass, raise, parts, eval)
		return
	}
	forHosts(b, func() map[hostKey]outcome { return map[hostKey]outcome{} }, func(seen map[hostKey]outcome, id uint32) {
		k := b.hostKey(parts, id)
		o, ok := seen[k]
		if !ok {
			o.passes, o.err = eval(id)
			seen[k] = o
		}
		o.mark(id, pass, raise)
	})
}

// maxCombos bounds the combinations of codes comboVerdictInto judges.
const maxCombos = 1 << 16

// codedCol is a dictionary-coded column of the static host data and its
// number of codes.
type codedCol struct {
	col *hostcols.Idx
	n   int
}

// codedParts returns the columns of parts, and the number of their codes'
// combinations, when every part is dictionary-coded (the hypervisor
// model, the signature, the stats, the cell) and the combinations number
// at most maxCombos; no part at all is one combination.
func (b *batch) codedParts(parts keyParts) ([]codedCol, int, bool) {
	info := b.s.info
	var cols []codedCol
	total := 1
	for p := parts; p != 0; p &= p - 1 {
		var c codedCol
		switch p & -p {
		case partHVModel:
			c = codedCol{&info.hvModel, len(info.hvModels)}
		case partSig:
			c = codedCol{&info.hvSig, len(info.hvSigHost)}
		case partStats:
			c = codedCol{&info.stats, len(info.statsTab)}
		case partCell:
			c = codedCol{&info.cell, len(info.cells)}
		default:
			return nil, 0, false
		}
		c.n = max(c.n, 1)
		if total *= c.n; total > maxCombos {
			return nil, 0, false
		}
		cols = append(cols, c)
	}
	return cols, total, true
}

// comboVerdictInto adds to pass and raise each host by eval's outcome for
// its combination of codes of cols, eval judging each combination once,
// on its first host: a pass over the columns, then one over the hosts'
// combinations (no call, no map, per host).
//
// lead, when not nil, is asked of the first host of each code of cols[0]
// (the lead column) whether the outcome of every host holding that code
// is the same whatever its codes of the other columns; where it is, eval
// judges that code once, not once per combination. A capability spec on
// cpu_info reads the stats only on a host whose cpu_info is None: on the
// synthetic cloud's 5 hypervisor models by 1,345 stats, 5 calls instead of
// 3,332.
func comboVerdictInto(b *batch, pass, raise *bitmap.Set, cols []codedCol, total int, eval func(id uint32) (bool, error), lead func(id uint32) bool) {
	n := b.s.n
	combo := make([]uint32, n)
	first := make([]int32, total)
	for i := range first {
		first[i] = -1
	}
	for id := range uint32(n) {
		c := uint64(0)
		for _, col := range cols {
			c = c*uint64(col.n) + col.col.At(id)
		}
		combo[id] = uint32(c)
		if first[c] < 0 {
			first[c] = int32(id)
		}
	}
	// byLead[c0] is lead code c0's shared outcome once judged (leadShared),
	// or leadEach where its combinations are judged one by one.
	var byLead []leadOutcome
	stride := 1 // the combinations of one lead code
	if lead != nil && len(cols) > 0 {
		byLead, stride = make([]leadOutcome, cols[0].n), total/cols[0].n
	}
	judge := func(c int, id uint32) outcome {
		if byLead == nil {
			ok, err := eval(id)
			return outcome{ok, err}
		}
		l := &byLead[c/stride]
		if l.state == leadUnknown {
			l.state = leadEach
			if lead(id) {
				l.state = leadShared
				l.o.passes, l.o.err = eval(id)
			}
		}
		if l.state == leadShared {
			return l.o
		}
		ok, err := eval(id)
		return outcome{ok, err}
	}
	p, r := make([]uint64, total), make([]uint64, total)
	for c, id := range first {
		if id < 0 {
			continue
		}
		o := judge(c, uint32(id))
		switch {
		case o.err != nil:
			r[c] = 1
		case o.passes:
			p[c] = 1
		}
	}
	_ = bitmap.ForShards(context.WithoutCancel(b.ctx), n, func(k int) error {
		lo := k * bitmap.ShardSize
		ids := combo[lo:min(lo+bitmap.ShardSize, n)]
		pw, rw := pass.ShardWordsOf(k), raise.ShardWordsOf(k)
		for wi := range pw {
			var wp, wr uint64
			for t, c := range ids[wi*64 : min(wi*64+64, len(ids))] {
				wp |= p[c] << t
				wr |= r[c] << t
			}
			pw[wi] |= wp
			rw[wi] |= wr
		}
		return nil
	})
}

// leadOutcome is what comboVerdictInto knows of one code of its lead
// column.
type leadOutcome struct {
	state uint8 // leadUnknown, leadEach or leadShared
	o     outcome
}

const (
	leadUnknown = iota // no host of the code judged yet
	leadEach           // each combination judged on its own
	leadShared         // o is every combination's outcome
)

// shardCoded reports whether parts is one part held in a shard's
// dictionary-coded integer column (shard.codedPart).
func (parts keyParts) shardCoded() bool {
	return parts == partTotalRAM || parts == partTotalDisk || parts == partVCPUs || parts == partFailed
}

// codedPart is sh's column of part p when a shard's dictionary-coded
// integer column holds it (a total, the vCPUs, the failed builds), else
// nil.
func (sh *shard) codedPart(p keyParts) *kernels.Coded[int64] {
	switch p {
	case partTotalRAM:
		return &sh.totalRAM
	case partTotalDisk:
		return &sh.totalDiskGB
	case partVCPUs:
		return &sh.vcpusTotal
	case partFailed:
		return &sh.failedBuilds
	}
	return nil
}

// shardCodeVerdictInto adds to pass and raise each host by eval's
// outcome for its value of part (shardCoded), judged once per code of
// each shard's dictionary (on the code's first host), or once per
// distinct value in a shard whose column is not coded: no map per host.
func shardCodeVerdictInto(b *batch, pass, raise *bitmap.Set, part keyParts, eval func(id uint32) (bool, error)) {
	_ = bitmap.ForShards(context.WithoutCancel(b.ctx), b.s.n, func(k int) error {
		c := b.s.shards[k].codedPart(part)
		base := uint32(k * bitmap.ShardSize)
		var byCode [kernels.CodedValues]outcome
		var judged [kernels.CodedValues]bool
		var byValue map[int64]outcome // a shard whose column is not coded
		for j := range c.Len() {
			id := base + uint32(j)
			var o outcome
			if c.IsCoded() {
				x := c.Code(j)
				if !judged[x] {
					byCode[x].passes, byCode[x].err = eval(id)
					judged[x] = true
				}
				o = byCode[x]
			} else {
				if byValue == nil {
					byValue = map[int64]outcome{}
				}
				v := c.At(j)
				var ok bool
				if o, ok = byValue[v]; !ok {
					o.passes, o.err = eval(id)
					byValue[v] = o
				}
			}
			o.mark(id, pass, raise)
		}
		return nil
	})
}

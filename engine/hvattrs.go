package engine

import "strings"

// The hypervisor attributes a host reports (hypervisor_type and _version,
// cpu_info, hypervisor_hostname, supported_instances; host_ip, see ipCol)
// are kept by index into their distinct values: hosts of one hardware model report the
// same ones, and a pointer per host and attribute, with its own copy of
// the text, cost about 130 bytes per host at 100,000 synthetic hosts. The
// readers want the *string and *int64 that HostAttrs holds: the pointers
// point into these tables, so reading one allocates nothing.

// hvModel is what the hosts of one hypervisor and hardware model report
// alike. Its pointers are the snapshot's own (nil: not reported); one
// cpuInfo pointer per distinct text, which lets ComputeCapabilitiesFilter
// memoise its walks by pointer (nova.CapCache).
type hvModel struct {
	typ, cpuInfo *string
	version      *int64
}

// hvModels interns hvModels while a snapshot is built.
type hvModels struct {
	byKey  map[hvModelKey]int32
	models []hvModel
	texts  map[string]*string
}

type hvModelKey struct {
	typ, cpuInfo         string
	hasTyp, hasCPU, hasV bool
	version              int64
}

// of returns the index of the model of a host reporting typ, version and
// cpuInfo.
func (m *hvModels) of(typ *string, version *int64, cpuInfo *string) int32 {
	var k hvModelKey
	if typ != nil {
		k.typ, k.hasTyp = *typ, true
	}
	if cpuInfo != nil {
		k.cpuInfo, k.hasCPU = *cpuInfo, true
	}
	if version != nil {
		k.version, k.hasV = *version, true
	}
	if i, ok := m.byKey[k]; ok {
		return i
	}
	if m.byKey == nil {
		m.byKey, m.texts = map[hvModelKey]int32{}, map[string]*string{}
	}
	var md hvModel
	if k.hasTyp {
		md.typ = m.text(k.typ)
	}
	if k.hasCPU {
		md.cpuInfo = m.text(k.cpuInfo)
	}
	if k.hasV {
		md.version = &k.version
	}
	i := int32(len(m.models))
	m.byKey[k] = i
	m.models = append(m.models, md)
	return i
}

// text returns the snapshot's one copy of s.
func (m *hvModels) text(s string) *string {
	if p, ok := m.texts[s]; ok {
		return p
	}
	p := new(string)
	*p = strings.Clone(s)
	m.texts[s] = p
	return p
}

// textCol is a column of optional texts, by index into the distinct ones.
//
// Invariants: idx is nil when no host has a text; else idx[id] == 0 where
// host id has none, k+1 for its text texts[k]. texts are distinct, and
// substrings of one string (no per-text allocation, none of the input's
// strings kept).
type textCol struct {
	idx   []uint32
	texts []string
}

// textColBuilder builds a textCol over n hosts.
type textColBuilder struct {
	col   textCol
	byTxt map[string]uint32
	arena []byte
	ends  []int
}

func newTextColBuilder(n int) *textColBuilder {
	return &textColBuilder{col: textCol{idx: make([]uint32, n)}, byTxt: map[string]uint32{}}
}

// set gives host id the text *p (nil: none).
func (b *textColBuilder) set(id uint32, p *string) {
	if p == nil {
		return
	}
	k, ok := b.byTxt[*p]
	if !ok {
		b.arena = append(b.arena, *p...)
		b.ends = append(b.ends, len(b.arena))
		k = uint32(len(b.ends))
		b.byTxt[*p] = k
	}
	b.col.idx[id] = k
}

// done returns the column.
func (b *textColBuilder) done() textCol {
	if len(b.ends) == 0 {
		return textCol{}
	}
	all := string(b.arena)
	b.col.texts = make([]string, len(b.ends))
	start := 0
	for k, end := range b.ends {
		b.col.texts[k] = all[start:end]
		start = end
	}
	return b.col
}

// get returns host id's text (nil: none). The pointer is the column's:
// not to be written through.
func (c *textCol) get(id uint32) *string {
	if c.idx == nil {
		return nil
	}
	if k := c.idx[id]; k != 0 {
		return &c.texts[k-1]
	}
	return nil
}

// hvType is host id's hypervisor_type.
func (info *hostInfo) hvType(id uint32) *string { return info.hvModels[info.hvModel.at(id)].typ }

// hvVersion is host id's hypervisor_version.
func (info *hostInfo) hvVersion(id uint32) *int64 { return info.hvModels[info.hvModel.at(id)].version }

// cpuInfo is host id's cpu_info text.
func (info *hostInfo) cpuInfo(id uint32) *string { return info.hvModels[info.hvModel.at(id)].cpuInfo }

// hvHostname is host id's hypervisor_hostname: node, which points at the
// host's node name (the caller's copy: the snapshot keeps no string per
// node), where the host reports none (as the oracle makes it up) or
// reports the node name.
func (info *hostInfo) hvHostname(id uint32, node *string) *string {
	if p := info.hvHostnames.get(id); p != nil {
		return p
	}
	return node
}

// hostIP is host id's host_ip (see ipCol: a new string for an IPv4
// address).
func (info *hostInfo) hostIP(id uint32) *string { return info.hostIPs.get(id) }

// supported is host id's supported_instances (canonical).
func (info *hostInfo) supported(id uint32) [][3]string { return info.sigSupported[info.hvSig.at(id)] }

// diskMBUsed is host id's disk_mb_used: (local_gb - free_disk_gb) * 1024,
// in int64's wrapping arithmetic, as the column held it in full.
func (info *hostInfo) diskMBUsed(id uint32) int64 { return info.diskGBUsed.at(id) * 1024 }

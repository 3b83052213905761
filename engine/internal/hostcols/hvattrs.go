package hostcols

import "strings"

// The hypervisor attributes a host reports (hypervisor_type and _version,
// cpu_info, hypervisor_hostname, supported_instances; host_ip, see IPs)
// are kept by index into their distinct values: hosts of one hardware model report the
// same ones, and a pointer per host and attribute, with its own copy of
// the text, cost about 130 bytes per host at 100,000 synthetic hosts. The
// readers want the *string and *int64 that HostAttrs holds: the pointers
// point into these tables, so reading one allocates nothing.

// HVModel is what the hosts of one hypervisor and hardware model report
// alike. Its pointers are the snapshot's own (nil: not reported); one
// CPUInfo pointer per distinct text, which lets ComputeCapabilitiesFilter
// memoise its walks by pointer.
type HVModel struct {
	Type, CPUInfo *string
	Version       *int64
}

// HVModels interns HVModel values while a snapshot is built.
type HVModels struct {
	byKey  map[hvModelKey]int32
	models []HVModel
	texts  map[string]*string
}

type hvModelKey struct {
	typ, cpuInfo         string
	hasTyp, hasCPU, hasV bool
	version              int64
}

// Of returns the index of the model of a host reporting typ, version and
// cpuInfo.
func (m *HVModels) Of(typ *string, version *int64, cpuInfo *string) int32 {
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
	var md HVModel
	if k.hasTyp {
		md.Type = m.text(k.typ)
	}
	if k.hasCPU {
		md.CPUInfo = m.text(k.cpuInfo)
	}
	if k.hasV {
		md.Version = &k.version
	}
	i := int32(len(m.models))
	m.byKey[k] = i
	m.models = append(m.models, md)
	return i
}

// text returns the snapshot's one copy of s.
func (m *HVModels) text(s string) *string {
	if p, ok := m.texts[s]; ok {
		return p
	}
	p := new(string)
	*p = strings.Clone(s)
	m.texts[s] = p
	return p
}

// Texts is a column of optional texts, by index into the distinct ones.
//
// Invariants: idx is nil when no host has a text; else idx[id] == 0 where
// host id has none, k+1 for its text texts[k]. texts are distinct, and
// substrings of one string (no per-text allocation, none of the input's
// strings kept).
type Texts struct {
	idx   []uint32
	texts []string
}

// TextsBuilder builds a Texts over n hosts.
type TextsBuilder struct {
	col   Texts
	byTxt map[string]uint32
	arena []byte
	ends  []int
}

// NewTextsBuilder returns a builder of a column of n optional texts.
func NewTextsBuilder(n int) *TextsBuilder {
	return &TextsBuilder{col: Texts{idx: make([]uint32, n)}, byTxt: map[string]uint32{}}
}

// Set gives host id the text *p (nil: none).
func (b *TextsBuilder) Set(id uint32, p *string) {
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

// Done returns the column.
func (b *TextsBuilder) Done() Texts {
	if len(b.ends) == 0 {
		return Texts{}
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

// Get returns host id's text (nil: none). The pointer is the column's:
// not to be written through.
func (c *Texts) Get(id uint32) *string {
	if c.idx == nil {
		return nil
	}
	if k := c.idx[id]; k != 0 {
		return &c.texts[k-1]
	}
	return nil
}

// Models returns the models interned so far, by index (not to be
// modified).
func (m *HVModels) Models() []HVModel { return m.models }

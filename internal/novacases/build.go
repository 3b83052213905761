package novacases

import "github.com/placer/placer/engine"

// The builders below keep the cases short: a host is 8 GiB / 8 vCPUs /
// 100 GB, all free, with the configuration's ratios; a flavor is 1 GiB,
// 1 vCPU, 1 GB root disk; a configuration is Nova's defaults with the
// case's filters and weighers.

// hostOpt changes one field of a host.
type hostOpt func(*engine.Host)

// host returns a host named name (node = name).
func host(name string, opts ...hostOpt) engine.Host {
	h := engine.Host{
		Host: name, MemoryMB: 8192, FreeRAMMB: 8192, VCPUs: 8,
		LocalGB: 100, FreeDiskGB: 100,
	}
	for _, o := range opts {
		o(&h)
	}
	return h
}

func node(n string) hostOpt        { return func(h *engine.Host) { h.Node = n } }
func cell(c string) hostOpt        { return func(h *engine.Host) { h.Cell = c } }
func disabled() hostOpt            { return func(h *engine.Host) { h.Service.Disabled = true } }
func down() hostOpt                { return func(h *engine.Host) { h.Service.Down = true } }
func ioOps(n int64) hostOpt        { return func(h *engine.Host) { h.NumIOOps = n } }
func numInst(n int64) hostOpt      { return func(h *engine.Host) { h.NumInstances = n } }
func failedBuilds(n int64) hostOpt { return func(h *engine.Host) { h.FailedBuilds = n } }
func hostIP(ip string) hostOpt     { return func(h *engine.Host) { h.HostIP = &ip } }
func cpuInfo(s string) hostOpt     { return func(h *engine.Host) { h.CPUInfo = &s } }
func hvVersion(v int64) hostOpt    { return func(h *engine.Host) { h.HypervisorVersion = &v } }

// ram sets total and free RAM (MB).
func ram(total, free int64) hostOpt {
	return func(h *engine.Host) { h.MemoryMB, h.FreeRAMMB = total, free }
}

// cpu sets total and used vCPUs.
func cpu(total, used int64) hostOpt {
	return func(h *engine.Host) { h.VCPUs, h.VCPUsUsed = total, used }
}

// disk sets total and free disk (GB).
func disk(total, free int64) hostOpt {
	return func(h *engine.Host) { h.LocalGB, h.FreeDiskGB = total, free }
}

func ramRatio(r float64) hostOpt  { return func(h *engine.Host) { h.RAMAllocationRatio = &r } }
func cpuRatio(r float64) hostOpt  { return func(h *engine.Host) { h.CPUAllocationRatio = &r } }
func diskRatio(r float64) hostOpt { return func(h *engine.Host) { h.DiskAllocationRatio = &r } }

// stats sets the host's stats from key, value pairs.
func stats(kv ...string) hostOpt {
	return func(h *engine.Host) {
		h.Stats = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Stats[kv[i]] = kv[i+1]
		}
	}
}

// metrics sets the host's reported metrics.
func metrics(m map[string]float64) hostOpt { return func(h *engine.Host) { h.Metrics = m } }

// instances puts instance uuids on the host.
func instances(uuids ...string) hostOpt { return func(h *engine.Host) { h.Instances = uuids } }

// supports sets the host's supported_instances.
func supports(specs ...engine.HVSpec) hostOpt {
	return func(h *engine.Host) { h.SupportedInstances = specs }
}

// agg returns an aggregate of the named hosts with metadata from key,
// value pairs.
func agg(name string, hosts []string, kv ...string) engine.Aggregate {
	md := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		md[kv[i]] = kv[i+1]
	}
	return engine.Aggregate{Name: name, Hosts: hosts, Metadata: md}
}

// names is a readable []string literal.
func names(s ...string) []string { return s }

// config returns Nova's defaults with these filters and weighers.
func config(filters, weighers []string, opts ...func(*engine.Config)) engine.Config {
	c := engine.DefaultConfig()
	c.Filters = append([]string{}, filters...)
	c.Weighers = append([]string{}, weighers...)
	for _, o := range opts {
		o(&c)
	}
	return c
}

// flavor is the default flavor: 1 GiB, 1 vCPU, 1 GB root.
func flavor() engine.Flavor {
	return engine.Flavor{Name: "small", MemoryMB: 1024, VCPUs: 1, RootGB: 1}
}

// request returns a request for n instances of the default flavor.
func request(n int) engine.Request {
	return engine.Request{NumInstances: n, Flavor: flavor()}
}

func strp(s string) *string { return &s }

// limits builds a Limits from the fields given as "memory_mb", v, ...
func limits(kv ...any) engine.Limits {
	var l engine.Limits
	for i := 0; i+1 < len(kv); i += 2 {
		v := toFloat(kv[i+1])
		switch kv[i] {
		case "memory_mb":
			l.Set |= engine.HasMemoryMB
			l.MemoryMB = v
		case "vcpu":
			l.Set |= engine.HasVCPU
			l.VCPU = v
		case "disk_gb":
			l.Set |= engine.HasDiskGB
			l.DiskGB = v
		}
	}
	return l
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	panic("limits: want a number")
}

// nvh is a NoValidHost at instance index with these counts.
func nvh(index, inPlay, prefiltered int, filters ...engine.FilterCount) *WantErr {
	return &WantErr{Kind: NoValidHost, Index: index, InPlay: inPlay, Prefiltered: prefiltered, Filters: filters}
}

// fc is one filter count.
func fc(name string, start, end int) engine.FilterCount {
	return engine.FilterCount{Name: name, Start: start, End: end}
}

// single is the common "one host, one filter" case: the host passes (and
// is chosen, with these limits) or the filter removes it.
func single(name string, filter string, h engine.Host, req engine.Request, pass bool, lim engine.Limits) Case {
	c := Case{
		Name:  name,
		Cloud: engine.Cloud{Config: config(names(filter), nil), Hosts: []engine.Host{h}},
		Req:   req,
	}
	if pass {
		c.Want = Want{Hosts: names(h.Host), Candidates: []int{1}, Limits: []engine.Limits{lim}, Weights: []float64{0}}
	} else {
		c.Want = Want{Err: nvh(0, 1, 1, fc(filter, 1, 0))}
	}
	return c
}

package reference

import (
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// Weigher is one host weigher of the catalogue (BaseHostWeigher).
type Weigher struct {
	// Name is the weigher's class name.
	Name string
	// MinVal is the weigher's minval: raw values are clamped to it and
	// normalisation starts from it. nil means none.
	MinVal *float64
	// MultiplierKey is the option (and aggregate metadata key) of the
	// weigher's multiplier.
	MultiplierKey string
	// ConfigMultiplier reads the option's configured value.
	ConfigMultiplier func(cfg *engine.Config) float64
	// Negated makes the multiplier -1 × the option (BuildFailureWeigher).
	Negated bool
	// Raw is _weigh_object; mult is the host's multiplier (MetricsWeigher
	// reads it). An error is an exception Nova would raise.
	Raw func(s *RequestSpec, h *HostState, mult float64) (float64, error)
}

var zero = 0.0

// weighers is the catalogue by name.
var weighers = map[string]*Weigher{
	engine.RAMWeigher: {
		Name: engine.RAMWeigher, MinVal: &zero, MultiplierKey: "ram_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.RAMWeightMultiplier },
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(h.FreeRAMMB), nil
		},
	},
	engine.CPUWeigher: {
		Name: engine.CPUWeigher, MinVal: &zero, MultiplierKey: "cpu_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.CPUWeightMultiplier },
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(float64(h.VCPUsTotal)*h.CPUAllocationRatio) - float64(h.VCPUsUsed), nil
		},
	},
	engine.DiskWeigher: {
		Name: engine.DiskWeigher, MinVal: &zero, MultiplierKey: "disk_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.DiskWeightMultiplier },
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(h.FreeDiskMB), nil
		},
	},
	engine.IoOpsWeigher: {
		Name: engine.IoOpsWeigher, MinVal: &zero, MultiplierKey: "io_ops_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.IoOpsWeightMultiplier },
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(h.NumIOOps), nil
		},
	},
	engine.NumInstancesWeigher: {
		Name: engine.NumInstancesWeigher, MultiplierKey: "num_instances_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.NumInstancesWeightMultiplier },
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(h.NumInstances), nil
		},
	},
	engine.MetricsWeigher: {
		Name: engine.MetricsWeigher, MultiplierKey: "metrics_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.MetricsWeightMultiplier },
		Raw:              metricsRaw,
	},
	engine.ServerGroupSoftAffinityWeigher: {
		Name: engine.ServerGroupSoftAffinityWeigher, MultiplierKey: "soft_affinity_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.SoftAffinityWeightMultiplier },
		Raw: func(s *RequestSpec, h *HostState, _ float64) (float64, error) {
			if s.Group == nil || s.Group.Policy != engine.PolicySoftAffinity {
				return 0, nil
			}
			return float64(s.membersOn(h)), nil
		},
	},
	engine.ServerGroupSoftAntiAffinityWeigher: {
		Name: engine.ServerGroupSoftAntiAffinityWeigher, MultiplierKey: "soft_anti_affinity_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.SoftAntiAffinityWeightMultiplier },
		Raw: func(s *RequestSpec, h *HostState, _ float64) (float64, error) {
			if s.Group == nil || s.Group.Policy != engine.PolicySoftAntiAffinity {
				return 0, nil
			}
			return float64(-1 * s.membersOn(h)), nil
		},
	},
	engine.BuildFailureWeigher: {
		Name: engine.BuildFailureWeigher, MultiplierKey: "build_failure_weight_multiplier",
		ConfigMultiplier: func(c *engine.Config) float64 { return c.BuildFailureWeightMultiplier },
		Negated:          true,
		Raw: func(_ *RequestSpec, h *HostState, _ float64) (float64, error) {
			return float64(h.FailedBuilds), nil
		},
	},
	engine.CrossCellWeigher: {
		// cross_cell_move_weight_multiplier is not a scenario option: Nova's
		// default 1000000.0. The raw value is 0 for a boot.
		Name: engine.CrossCellWeigher, MultiplierKey: "cross_cell_move_weight_multiplier",
		ConfigMultiplier: func(*engine.Config) float64 { return 1000000.0 },
		Raw: func(*RequestSpec, *HostState, float64) (float64, error) {
			return 0, nil
		},
	},
}

// Multiplier is the weigher's multiplier for h: utils.get_weight_multiplier
// (the minimum of the host's aggregates' values under the option's name,
// else the configured value), negated for BuildFailureWeigher.
func (w *Weigher) Multiplier(cfg *engine.Config, h *HostState) float64 {
	m := nova.AggregateNumValue(h.AggRaw[w.MultiplierKey], w.ConfigMultiplier(cfg))
	if w.Negated {
		return -1 * m
	}
	return m
}

// metricsRaw is MetricsWeigher._weigh_object: Σ value*ratio over
// metrics.weight_setting; a missing metric raises when required, else
// weighs weight_of_unavailable when ratio*multiplier != 0.
func metricsRaw(s *RequestSpec, h *HostState, mult float64) (float64, error) {
	cfg := s.Cfg
	value := 0.0
	for _, mw := range cfg.MetricsWeightSetting {
		v, found := h.Metrics[mw.Name]
		if found {
			value += float64(float64(v) * mw.Ratio)
			continue
		}
		if cfg.MetricsRequired {
			return 0, &engine.MetricNotFoundError{Host: h.Host, Node: h.Nodename, Metric: mw.Name}
		}
		if float64(mw.Ratio*mult) != 0 {
			return cfg.MetricsWeightOfUnavailable, nil
		}
	}
	return value, nil
}

// normalize is nova.weights.normalize: the values mapped to [0, 1]
// between minval and maxval (the list's own minimum and maximum when nil);
// all zero when those are equal. No weigher of the catalogue sets maxval.
func normalize(ws []float64, minval, maxval *float64) []float64 {
	out := make([]float64, len(ws))
	if len(ws) == 0 {
		return out
	}
	var maxv, minv float64
	if maxval != nil {
		maxv = *maxval
	} else {
		maxv = ws[0]
		for _, x := range ws[1:] {
			if x > maxv {
				maxv = x
			}
		}
	}
	if minval != nil {
		minv = *minval
	} else {
		minv = ws[0]
		for _, x := range ws[1:] {
			if x < minv {
				minv = x
			}
		}
	}
	if minv == maxv {
		return out
	}
	rng := maxv - minv
	for i, x := range ws {
		out[i] = (x - minv) / rng
	}
	return out
}

// weighing is the configured weighers with every host's multipliers,
// which do not change during a request (they depend on the configuration
// and the host's aggregates only).
type weighing struct {
	ws []*Weigher
	// mult[i][h.Index] is ws[i].Multiplier(cfg, h).
	mult [][]float64
}

func newWeighing(cfg *engine.Config, states []*HostState) *weighing {
	wg := &weighing{}
	for _, name := range cfg.Weighers {
		w := weighers[name]
		m := make([]float64, len(states))
		for _, h := range states {
			m[h.Index] = w.Multiplier(cfg, h)
		}
		wg.ws = append(wg.ws, w)
		wg.mult = append(wg.mult, m)
	}
	return wg
}

// weigh is BaseWeightHandler.get_weighed_objects without the sort: every
// host starts at 0.0; with more than one host each weigher in order adds
// multiplier(host) * normalized raw value.
func (wg *weighing) weigh(s *RequestSpec, hosts []*HostState) ([]float64, error) {
	total := make([]float64, len(hosts))
	if len(hosts) <= 1 {
		return total, nil
	}
	raw := make([]float64, len(hosts))
	mult := make([]float64, len(hosts))
	for k, w := range wg.ws {
		for i, h := range hosts {
			mult[i] = wg.mult[k][h.Index]
			r, err := w.Raw(s, h, mult[i])
			if err != nil {
				return nil, err
			}
			if w.MinVal != nil && r < *w.MinVal {
				r = *w.MinVal
			}
			raw[i] = r
		}
		norm := normalize(raw, w.MinVal, nil)
		for i := range hosts {
			total[i] += float64(mult[i] * norm[i])
		}
	}
	return total, nil
}

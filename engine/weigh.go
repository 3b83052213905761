package engine

import "math"

// weighScratch holds one instance's weighing: the candidates in id order
// and their total weights, plus reusable buffers.
type weighScratch struct {
	cands []uint32
	score []float64
	raw   []float64
}

// weigh computes the total weight of every host in play, as Nova's
// BaseWeightHandler.get_weighed_objects does: per weigher, raw values
// (clamped to minval), normalised over the candidates ((x-min)/(max-min);
// all equal gives 0), times the host's multiplier, accumulated from 0.0
// weigher by weigher in configuration order. One candidate weighs 0.0 and
// no weigher runs.
func (b *batch) weigh() error {
	w := &b.w
	w.cands = b.alive.AppendTo(w.cands[:0])
	n := len(w.cands)
	w.score = grow(w.score, n)
	clear(w.score)
	if n <= 1 {
		return nil
	}
	w.raw = grow(w.raw, n)
	for _, wi := range b.weighers {
		raw := w.raw[:n]
		if err := b.rawValues(wi, w.cands, raw); err != nil {
			return err
		}
		lo, hi := raw[0], raw[0]
		for _, x := range raw[1:] {
			lo, hi = min(lo, x), max(hi, x)
		}
		if minvalZero(wi) {
			lo = 0
		}
		if lo == hi {
			continue // normalize() gives all zeros: multiplier * 0 adds nothing
		}
		span := hi - lo
		for k, id := range w.cands {
			sh, j := b.s.at(id)
			w.score[k] += float64(sh.mult[wi].At(j) * ((raw[k] - lo) / span)) // rounded: no fused multiply-add (arm64), as Python
		}
	}
	return nil
}

// rawValues fills raw with weigher wi's raw value (clamped to its minval)
// for every candidate.
func (b *batch) rawValues(wi int, cands []uint32, raw []float64) error {
	switch wi {
	case wRAM, wCPU, wDisk, wIoOps, wNumInstances, wBuildFailure:
		for k, id := range cands {
			raw[k] = b.ov.raw(b.s, wi, id)
		}
	case wSoftAffinity, wSoftAntiAffinity:
		g := b.group
		want := PolicySoftAffinity
		if wi == wSoftAntiAffinity {
			want = PolicySoftAntiAffinity
		}
		for k, id := range cands {
			raw[k] = 0
			if g != nil && g.policy == want {
				raw[k] = softSign(wi) * float64(g.count[b.s.info.instKey(id)])
			}
		}
	case wMetrics:
		for k, id := range cands {
			x, err := b.metricsValue(id)
			if err != nil {
				return err
			}
			raw[k] = x
		}
	case wCrossCell:
		clear(raw)
	}
	return nil
}

// metricsValue is MetricsWeigher._weigh_object: host id's raw value, or
// the ComputeHostMetricNotFound Nova raises for it.
func (b *batch) metricsValue(id uint32) (float64, error) {
	x, miss := b.s.metricsRaw(id)
	if miss < 0 {
		return x, nil
	}
	return 0, &MetricNotFoundError{
		InstanceIndex: b.index, InstanceUUID: b.uuid,
		Host: b.s.info.hostOf(id), Node: b.s.info.nodeOf(id), Metric: b.cfg.MetricsWeightSetting[miss].Name,
	}
}

// metricsRaw is MetricsWeigher._weigh_object for host id: its value, or,
// when Nova raises ComputeHostMetricNotFound (metrics_required and a
// weighed metric the host does not report), the index of that metric in
// the setting (else -1).
func (s *Snapshot) metricsRaw(id uint32) (v float64, missing int) {
	value := 0.0
	for k, mw := range s.cfg.MetricsWeightSetting {
		x, ok := s.info.metrics.Get(id, mw.Name)
		if ok {
			value += float64(float64(x) * mw.Ratio) // rounded, as Python
			continue
		}
		if s.cfg.MetricsRequired {
			return math.NaN(), k
		}
		sh, j := s.at(id)
		if mw.Ratio*sh.mult[wMetrics].At(j) != 0 {
			return s.cfg.MetricsWeightOfUnavailable, -1
		}
	}
	return value, -1
}

// softSign is the sign of soft (anti-)affinity weigher w's raw values:
// ServerGroupSoftAntiAffinityWeigher negates the member count.
func softSign(w int) float64 {
	if w == wSoftAntiAffinity {
		return -1
	}
	return 1
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

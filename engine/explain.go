package engine

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/placer/placer/bitmap"
)

// Explain: why PlaceBatch would not put a request's first instance on a
// host, and how it weighs the hosts it would. It runs the same filters,
// weighers and choice as PlaceBatch's instance 0, one filter at a time
// (so that each rejected host is charged to the first filter that removed
// it) and with every weigher's terms kept; it is off PlaceBatch's path and
// much slower than it. explain_reasons.go words the reasons.

// ExplainOptions says which hosts an Explanation reports.
type ExplainOptions struct {
	// Hosts, when not empty, restricts the rejections and weights
	// reported to these hosts (a HostNode whose Node is "" names every
	// node of its host). The filters and weighers still run over every
	// host, as PlaceBatch runs them: a weight is normalised over all the
	// candidates.
	Hosts []HostNode
}

// Explanation is how PlaceBatch's first instance of a request goes: the
// hosts rejected and why, the candidates' weights term by term, their
// rank and the host chosen.
type Explanation struct {
	// InstanceUUID is the first instance's uuid.
	InstanceUUID string
	// InPlay is the number of hosts; Prefiltered how many are left after
	// requested_destination, ignore_hosts, force_hosts and force_nodes.
	InPlay, Prefiltered int
	// Forced is true when force_hosts or force_nodes made every filter be
	// skipped.
	Forced bool
	// Filters are the per-filter counts, in chain order, up to the first
	// filter that left no host: those of FilterHosts and of a
	// NoValidHostError.
	Filters []FilterCount
	// Candidates is how many hosts passed every filter (Placement.Candidates).
	Candidates int
	// SubsetSize is how many of the best candidates the choice draws from:
	// min(host_subset_size, Candidates).
	SubsetSize int
	// Chosen is the host PlaceBatch puts the first instance on (its
	// generator drawn as PlaceBatch draws it); nil when no host passed.
	Chosen *HostWeight
	// Weighers are the weighers that ran, in configuration order, with the
	// bounds they normalised the raw values by (none with one candidate:
	// Nova weighs nothing then).
	Weighers []WeigherBounds
	// Rejected are the hosts reported that did not pass, in id order.
	Rejected []HostRejection
	// Weighed are the candidates reported, best first (weight descending,
	// then id ascending: Rank order).
	Weighed []HostWeight
}

// WeigherBounds is one weigher's normalisation: raw values map to
// (raw - Min) / (Max - Min), or to 0 when Min equals Max.
type WeigherBounds struct {
	Weigher  string
	Min, Max float64
}

// HostRejection is one host that did not pass and what removed it.
type HostRejection struct {
	ID         uint32
	Host, Node string
	// Filter is the first filter, in chain order, that rejected the host;
	// or, for a host dropped before the filters run, the request field that
	// dropped it: requested_destination, ignore_hosts, force_hosts or
	// force_nodes.
	Filter string
	// Reason says why. When NovaLog is true it is the line Nova's filter
	// logs (at debug level) for this host, word for word; otherwise it is
	// placer's wording (Nova logs nothing, or something placer cannot
	// reproduce exactly).
	Reason  string
	NovaLog bool
	// Check holds the values a resource filter compared; nil for the
	// other filters.
	Check *ResourceCheck
}

// ResourceCheck is what a resource filter compared for one host: for RAM
// (MB), cores and disk (MB) the request against what the host can still
// give under its allocation ratio; for I/O ops and instances the host's
// count against its limit.
type ResourceCheck struct {
	// Requested is one instance's demand (0 for the counting filters).
	Requested float64
	// Total is the host's total; Used what is in use (for the counting
	// filters, the count).
	Total, Used float64
	// Ratio is the allocation ratio the filter applied (the aggregates'
	// minimum for an Aggregate* filter); 0 for the counting filters.
	Ratio float64
	// Limit is Total × Ratio (or the counting filter's maximum); Usable
	// is Limit − Used. For the Exact* filters, Ratio and Limit are 0 and
	// Usable is what the filter holds equal to Requested: free RAM, free
	// vCPUs (Total − Used), free disk.
	Limit, Usable float64
	// SetBy names the aggregates whose metadata set Ratio (Limit for
	// the Aggregate I/O-ops and instance filters): those of the host's
	// aggregates holding the minimum, Nova's choice among their values.
	// Empty for the other filters, and when the Aggregate* filter fell
	// back to the host's or the configuration's value (no aggregate has
	// the key, or one value does not parse).
	SetBy []string
}

// HostWeight is one candidate's weight, term by term.
type HostWeight struct {
	ID         uint32
	Host, Node string
	// Rank is the candidate's place, 1 for the best.
	Rank int
	// Weight is the total: the terms' contributions summed in order from
	// 0.0, bit for bit PlaceBatch's Placement.Weight.
	Weight float64
	// InSubset says whether the host is one the choice draws from.
	InSubset bool
	// Terms are the weighers' parts, in configuration order (empty with
	// one candidate).
	Terms []WeigherTerm
}

// WeigherTerm is one weigher's part of a host's weight.
type WeigherTerm struct {
	Weigher string
	// Raw is the weigher's value for the host; Normalized its place
	// between the bounds (0 when the bounds are equal).
	Raw, Normalized float64
	// Multiplier is the host's multiplier for the weigher (the
	// aggregates' or the configured one).
	Multiplier float64
	// Contribution is Multiplier × Normalized, what the weigher adds (0
	// when the bounds are equal: Nova adds nothing then).
	Contribution float64
}

// Explain explains how PlaceBatch would place req's first instance on s:
// for each host reported, the first filter that rejects it and why, or
// its weight broken down per weigher and its rank, and the host chosen.
// It agrees with PlaceBatch (the same counts, candidates, weights and
// choice) but is slower: use it to answer a question, not to place.
//
// Errors: a *ValidationError for bad input (an unknown host in
// opts.Hosts is reported as hosts[i]), and what PlaceBatch returns where
// Nova would raise (*NovaError, *MetricNotFoundError). A request no host
// passes is not an error: its Explanation has no candidate.
func Explain(ctx context.Context, s *Snapshot, req Request, opts ExplainOptions) (*Explanation, error) {
	if err := checkSnapshot(s); err != nil {
		return nil, err
	}
	if s.cfg.SchedulerDriver == DriverChanceScheduler {
		return nil, invalid("config.scheduler_driver", "explain needs the filter scheduler (no filter or weigher runs under %s)", DriverChanceScheduler)
	}
	b, err := prepare(ctx, s, req, true)
	if err != nil {
		return nil, err
	}
	defer b.release()
	report, err := hostsSet(s, opts.Hosts, "hosts")
	if err != nil {
		return nil, err
	}
	e := &Explanation{InstanceUUID: b.uuid, InPlay: s.n}
	if err := b.explainFilters(e, report); err != nil {
		return nil, err
	}
	e.Candidates = b.alive.Count()
	if e.Candidates == 0 {
		return e, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := b.explainWeights(e, report); err != nil {
		return nil, err
	}
	return e, nil
}

// hostsSet is the set of the hosts hosts name (nil: none); an unknown one
// is a ValidationError on field[i].
func hostsSet(s *Snapshot, hosts []HostNode, field string) (*bitmap.Set, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	set := bitmap.NewSet(s.n)
	for i, hn := range hosts {
		found := false
		for id := range s.info.byHostLower(strings.ToLower(hn.Host)).All() {
			if s.info.hostOf(id) == hn.Host && (hn.Node == "" || s.info.nodeOf(id) == hn.Node) {
				set.Add(id)
				found = true
			}
		}
		if !found {
			if hn.Node != "" {
				return nil, invalid(sprintf("%s[%d]", field, i), "no node %q of host %q in the snapshot", hn.Node, hn.Host)
			}
			return nil, invalid(sprintf("%s[%d]", field, i), "no host %q in the snapshot", hn.Host)
		}
	}
	return set, nil
}

// explainFilters runs instance 0's pre-filtering and filter chain one
// filter at a time, leaving the candidates in b.alive and charging each
// host removed to what removed it.
func (b *batch) explainFilters(e *Explanation, report *bitmap.Set) error {
	all := b.set()
	all.Fill()
	ran := b.startFilter()
	e.Forced = b.forced
	e.Prefiltered = b.alive.Count()
	dropped := all.Clone()
	dropped.AndNot(b.alive)
	for _, id := range dropped.AppendTo(nil) {
		if report == nil || report.Has(id) {
			field := b.prefilterField(id)
			e.Rejected = append(e.Rejected, HostRejection{ID: id, Host: b.s.info.hostOf(id), Node: b.s.info.nodeOf(id),
				Filter: field, Reason: "dropped by the request's " + field + " before the filters run"})
		}
	}
	if !ran || b.forced {
		return nil
	}
	start := e.Prefiltered
	for _, f := range b.filters {
		before := b.alive.Clone()
		if f.keepsAll == nil || !f.keepsAll(b) {
			if err := f.apply(b, b.alive); err != nil {
				return err
			}
		}
		end := b.alive.Count()
		e.Filters = append(e.Filters, FilterCount{Name: f.name, Start: start, End: end})
		if end != start {
			before.AndNot(b.alive)
			for _, id := range before.AppendTo(nil) {
				if report == nil || report.Has(id) {
					e.Rejected = append(e.Rejected, b.rejection(f, id))
				}
			}
		}
		if end == 0 {
			break
		}
		start = end
	}
	slices.SortFunc(e.Rejected, func(x, y HostRejection) int { return cmp.Compare(x.ID, y.ID) })
	return nil
}

// prefilterField is the request field that dropped host id before the
// filters, in the order HostManager.get_filtered_hosts applies them.
func (b *batch) prefilterField(id uint32) string {
	info, r := b.s.info, b.req
	host := info.hostOf(id)
	if d := r.RequestedDestination; d != nil && !(host == d.Host && (d.Node == "" || info.nodeOf(id) == d.Node)) {
		return "requested_destination"
	}
	lower := strings.ToLower(host)
	named := func(hosts []string) bool {
		return slices.ContainsFunc(hosts, func(h string) bool { return strings.ToLower(h) == lower })
	}
	if named(r.IgnoreHosts) {
		return "ignore_hosts"
	}
	if len(r.ForceHosts) > 0 && !named(r.ForceHosts) {
		return "force_hosts"
	}
	return "force_nodes"
}

// explainWeights weighs the candidates of b.alive as the baseline
// (weigh.go) does, keeping each term, ranks them and draws the choice.
func (b *batch) explainWeights(e *Explanation, report *bitmap.Set) error {
	cands := b.alive.AppendTo(nil)
	n := len(cands)
	ws := make([]HostWeight, n)
	for k, id := range cands {
		ws[k] = HostWeight{ID: id, Host: b.s.info.hostOf(id), Node: b.s.info.nodeOf(id)}
	}
	if n > 1 {
		raw := make([]float64, n)
		for _, wi := range b.weighers {
			if err := b.ctx.Err(); err != nil {
				return err // one weigher over every candidate at a time
			}
			if err := b.rawValues(wi, cands, raw); err != nil {
				return err
			}
			lo, hi := raw[0], raw[0]
			for _, x := range raw[1:] {
				lo, hi = min(lo, x), max(hi, x)
			}
			if minvalZero(wi) {
				lo = 0
			}
			e.Weighers = append(e.Weighers, WeigherBounds{Weigher: WeigherCatalogue[wi], Min: lo, Max: hi})
			span := hi - lo
			for k, id := range cands {
				sh, j := b.s.at(id)
				t := WeigherTerm{Weigher: WeigherCatalogue[wi], Raw: raw[k], Multiplier: sh.mult[wi].At(j)}
				if lo != hi {
					t.Normalized = (raw[k] - lo) / span
					t.Contribution = float64(t.Multiplier * t.Normalized) // rounded: no FMA (arm64)
					ws[k].Weight += t.Contribution
				}
				ws[k].Terms = append(ws[k].Terms, t)
			}
		}
	}
	slices.SortStableFunc(ws, func(x, y HostWeight) int { return cmp.Compare(y.Weight, x.Weight) })
	e.SubsetSize = min(b.cfg.HostSubsetSize, n)
	best := make([]scored, e.SubsetSize)
	var ties []scored
	for k := range ws {
		ws[k].Rank = k + 1
		ws[k].InSubset = k < e.SubsetSize
		if k < e.SubsetSize {
			best[k] = scored{ws[k].ID, ws[k].Weight}
		}
		if ws[k].Weight == ws[0].Weight {
			ties = append(ties, scored{ws[k].ID, ws[k].Weight})
		}
	}
	if b.cfg.ShuffleBestSameWeighedHosts {
		// Every host tied at the top weight can be drawn.
		for k := range ws {
			ws[k].InSubset = ws[k].InSubset || ws[k].Weight == ws[0].Weight
		}
	}
	chosen := b.choose(best, ties)
	for k := range ws {
		if ws[k].ID == chosen.id {
			c := ws[k]
			e.Chosen = &c
		}
		if report == nil || report.Has(ws[k].ID) {
			e.Weighed = append(e.Weighed, ws[k])
		}
	}
	return nil
}

package engine

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/placer/placer/bitmap"

	"github.com/placer/placer/internal/kernels"
)

// Hooks for the external tests (package engine_test), which can import
// internal/synth without an import cycle.

// Ranking chooses how the batches of one test rank and what watches
// them: it is passed per call (PlaceBatchWith, Warm.Ranking), so that
// tests ranking differently may run in parallel. The zero value ranks as
// PlaceBatch does.
type Ranking struct {
	// Baseline ranks with the literal per-instance rescoring.
	Baseline bool
	// Scaled, when set, turns the dense ranker's scaled weights on or off.
	Scaled *bool
	// NoScoreCache keeps the dense ranker from the full rescorings kept
	// across batches.
	NoScoreCache bool
	// NoFitCache keeps the resource filters from the verdicts kept
	// across batches.
	NoFitCache bool
	// FitKept and FitJudged, when set, count the resource passes over a
	// shard that used kept verdicts and those that judged its hosts.
	FitKept, FitJudged *int
	// CopiedShards, WeighedShards and DerivedShards, when set, count the
	// shards the dense ranker's full rescorings copied from a kept
	// rescoring, those they weighed and those they derived from a kept
	// rescoring of the shard's parent (without scaled weights).
	CopiedShards, WeighedShards, DerivedShards *int
	// DenseBatches, when set, counts the batches ranked by the dense
	// ranker.
	DenseBatches *int
	// SparseRefreshes, when set, counts the refreshes whose bounds moved
	// that weighed only a soft group's hosts again.
	SparseRefreshes *int
	// Refines, when set, counts the lazy leaves the dense ranker's
	// bounds computed (lazybounds.go).
	Refines *int
	// NoModelSeeds seeds the lazy bounds from the block summaries alone;
	// ModelSeeds, when set, counts the blocks seeded by the hypervisor
	// models their candidates hold (modelbounds.go).
	NoModelSeeds bool
	ModelSeeds   *int
	// NoMetricsKept runs MetricsWeigher's block kernel every time
	// (metricsCol.kept); MetricsKept, when set, counts the blocks whose
	// extremes were read from the lineage's column instead.
	NoMetricsKept bool
	MetricsKept   *int
	// NoSparseWeigh weighs every shard a full rescoring weighs with the
	// column kernels, however few candidates it holds (weighSparse);
	// SparseWeighed, when set, counts the shards weighed host by host.
	NoSparseWeigh bool
	SparseWeighed *int
	// Check, when set, makes every refresh of the dense ranker check its
	// invariants against plain loops over the candidates, and every
	// search of its best tree against the scan over the blocks, reporting
	// violations to Check; ScaledRefreshes then counts the refreshes that
	// left scaled weights, SearchBestChecked the searches compared.
	Check                              func(error)
	ScaledRefreshes, SearchBestChecked *int
}

// options are r as a batch's rankOptions.
func (r Ranking) options() rankOptions {
	o := rankOptions{baseline: r.Baseline, noScoreCache: r.NoScoreCache, noFitCache: r.NoFitCache, noModelSeeds: r.NoModelSeeds,
		noMetricsKept: r.NoMetricsKept, noSparseWeigh: r.NoSparseWeigh}
	if r.Scaled != nil {
		o.scaled = -1
		if *r.Scaled {
			o.scaled = 1
		}
	}
	if r.DenseBatches == nil && r.Check == nil && r.CopiedShards == nil && r.WeighedShards == nil && r.DerivedShards == nil && r.FitKept == nil && r.FitJudged == nil && r.SparseRefreshes == nil &&
		r.Refines == nil && r.ModelSeeds == nil && r.MetricsKept == nil && r.SparseWeighed == nil {
		return o
	}
	h := &rankHooks{}
	if r.FitKept != nil || r.FitJudged != nil {
		var mu sync.Mutex // the shards' passes run in parallel
		h.afterFitPass = func(kept bool) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case kept && r.FitKept != nil:
				*r.FitKept++
			case !kept && r.FitJudged != nil:
				*r.FitJudged++
			}
		}
	}
	if r.CopiedShards != nil || r.WeighedShards != nil || r.DerivedShards != nil {
		h.afterRescore = func(copied, weighed, derived int) {
			for _, c := range []struct {
				n *int
				v int
			}{{r.CopiedShards, copied}, {r.WeighedShards, weighed}, {r.DerivedShards, derived}} {
				if c.n != nil {
					*c.n += c.v
				}
			}
		}
	}
	if n := r.DenseBatches; n != nil {
		h.onDense = func() { *n++ }
	}
	if n := r.SparseRefreshes; n != nil {
		h.onSparseRefresh = func() { *n++ }
	}
	if n := r.Refines; n != nil {
		h.onRefine = func() { *n++ }
	}
	// Called from the shards' goroutines, in parallel.
	if n := r.ModelSeeds; n != nil {
		h.onModelSeed = lockedCounter(n)
	}
	if n := r.MetricsKept; n != nil {
		h.onMetricsKept = lockedCounter(n)
	}
	if n := r.SparseWeighed; n != nil {
		h.onSparseWeigh = lockedCounter(n)
	}
	if fail := r.Check; fail != nil {
		h.afterRefresh = func(rk *denseRanker) {
			if rk.scaled && r.ScaledRefreshes != nil {
				*r.ScaledRefreshes++
			}
			if err := rk.checkInvariants(); err != nil {
				fail(err)
			}
		}
		h.afterSearchBest = func(rk *denseRanker, c *collector, wantTies bool) {
			var want collector
			want.init(c.k, wantTies)
			want.chosen = c.chosen
			rk.searchScan(&want, nil, wantTies, nil, -1)
			if !reflect.DeepEqual(c.best, want.best) || !reflect.DeepEqual(c.tieList(), want.tieList()) {
				fail(fmt.Errorf("searchBest offered best %v ties %v, the scan %v, %v", c.best, c.tieList(), want.best, want.tieList()))
			}
			if r.SearchBestChecked != nil {
				*r.SearchBestChecked++
			}
		}
	}
	o.hooks = h
	return o
}

// lockedCounter returns a hook adding one to *n under a mutex of its own,
// for hooks called from several goroutines at once.
func lockedCounter(n *int) func() {
	var mu sync.Mutex
	return func() {
		mu.Lock()
		defer mu.Unlock()
		*n++
	}
}

// PlaceBatchWith is PlaceBatch ranking as r says.
func PlaceBatchWith(ctx context.Context, s *Snapshot, req Request, r Ranking) (Plan, error) {
	return placeBatch(ctx, s, req, r.options())
}

// checkInvariants checks the block statistics, the scores, the block
// bests and, for scaled weights, the bound on their error.
func (rk *denseRanker) checkInvariants() error {
	if n := rk.v.alive().Count(); rk.count != n {
		return fmt.Errorf("the ranker counts %d candidates, the batch %d", rk.count, n)
	}
	for k, w := range rk.v.alive().Words() {
		if rk.in[k] != w {
			return fmt.Errorf("candidate word %d is %x, the batch's %x", k, rk.in[k], w)
		}
	}
	var ref uint32
	haveRef := false
	allLo, allHi := make([]float64, len(rk.act)), make([]float64, len(rk.act))
	for a := range allLo {
		allLo[a], allHi[a] = math.Inf(1), math.Inf(-1)
	}
	for q := range rk.nb {
		best := math.Inf(-1)
		lo, hi := make([]float64, len(rk.act)), make([]float64, len(rk.act))
		for a := range lo {
			lo[a], hi[a] = math.Inf(1), math.Inf(-1)
		}
		for k, w := range rk.words(q) {
			for ; w != 0; w &= w - 1 {
				id := uint32(q*kernels.Block + k*64 + bits.TrailingZeros64(w))
				if !rk.v.alive().Has(id) {
					return fmt.Errorf("host %d is a candidate of the ranker, not of the batch", id)
				}
				for a, wi := range rk.act {
					x := rk.raw(wi, id)
					lo[a], hi[a] = min(lo[a], x), max(hi[a], x)
				}
				want := rk.weightOf(id)
				if math.Float64bits(rk.weight(id)) != math.Float64bits(want) {
					return fmt.Errorf("host %d: score %v, want %v (scaled %v) touched %v count %d lohi %v %v", id, rk.weight(id), want, rk.scaled, rk.v.b.ov.has(id), rk.count, rk.lo, rk.hi)
				}
				best = max(best, want)
				if !haveRef {
					ref, haveRef = id, true
				}
				if rk.scaled {
					d := (rk.weight(id) - rk.weight(ref)) - (rk.scoreOf(id) - rk.scoreOf(ref))
					if math.Abs(d) > 2*rk.eps {
						return fmt.Errorf("hosts %d, %d: scaled weights differ from the weights' difference by %v > 2*eps = %v", id, ref, d, 2*rk.eps)
					}
				}
			}
		}
		for a := range rk.act {
			allLo[a], allHi[a] = min(allLo[a], lo[a]), max(allHi[a], hi[a])
		}
		for a, wi := range rk.act {
			// A weigher whose minval is 0 keeps its maximum only: its
			// bLo need only not exceed the candidates' minimum.
			loOK := rk.bLo[a][q] == lo[a] || minvalZero(wi) && rk.bLo[a][q] <= lo[a]
			hiOK := rk.bHi[a][q] == hi[a]
			if rk.lazy != nil && rk.lazy[a] && !rk.exact[a][q] {
				// A lazy weigher's bound (lazybounds.go).
				loOK, hiOK = rk.bLo[a][q] <= lo[a] || minvalZero(wi), rk.bHi[a][q] >= hi[a]
			}
			if !loOK || !hiOK {
				return fmt.Errorf("block %d weigher %d: statistics [%v, %v], candidates' [%v, %v]", q, rk.act[a], rk.bLo[a][q], rk.bHi[a][q], lo[a], hi[a])
			}
		}
		if rk.bBest[q] != best {
			return fmt.Errorf("block %d: best %v, candidates' %v", q, rk.bBest[q], best)
		}
	}
	if err := rk.checkLent(); err != nil {
		return err
	}
	inexact := 0
	for a, lazy := range rk.lazy {
		for q := range rk.nb {
			if lazy && !rk.exact[a][q] {
				inexact++
			}
		}
	}
	if n := int(rk.inexact.Load()); n != inexact {
		return fmt.Errorf("the ranker counts %d lazy leaves holding a bound, its flags %d", n, inexact)
	}
	for a, wi := range rk.act {
		if minvalZero(wi) {
			allLo[a] = 0
		}
		if rk.lo[a] != allLo[a] || rk.hi[a] != allHi[a] {
			return fmt.Errorf("weigher %d: bounds [%v, %v], candidates' [%v, %v]", wi, rk.lo[a], rk.hi[a], allLo[a], allHi[a])
		}
	}
	return nil
}

// checkLent checks the weights the ranker reads in place: a lent shard's
// are a buffer of the entry it holds, which still holds them and counts
// it among its readers; an owned shard's are its part of score; the
// overrides (ov, ovIDs, ovCount) agree and cover lent shards only.
func (rk *denseRanker) checkLent() error {
	s := rk.v.snap()
	for k, w := range rk.shardW {
		if len(w) != s.shards[k].hostCount() {
			return fmt.Errorf("shard %d: %d weights for %d hosts", k, len(w), s.shards[k].hostCount())
		}
		if len(w) == 0 {
			continue
		}
		if !rk.lent[k] {
			if &w[0] != &rk.score[k*bitmap.ShardSize] {
				return fmt.Errorf("shard %d: owned weights outside score", k)
			}
			continue
		}
		e := rk.held
		if e == nil {
			return fmt.Errorf("shard %d lent, no entry held", k)
		}
		rk.heldBy.mu.Lock()
		readers, bufs := e.readers, e.scores
		rk.heldBy.mu.Unlock()
		if readers <= 0 || k >= len(bufs) || bufs[k] == nil || len(bufs[k].w) == 0 || &bufs[k].w[0] != &w[0] {
			return fmt.Errorf("shard %d: lent weights not the held entry's buffer (readers %d)", k, readers)
		}
	}
	counts := make([]int32, len(rk.shardW))
	for _, id := range rk.ovIDs {
		k := id >> bitmap.ShardBits
		if !rk.ov.Has(id) || !rk.lent[k] {
			return fmt.Errorf("override %d: in ov %v, its shard lent %v", id, rk.ov.Has(id), rk.lent[k])
		}
		counts[k]++
	}
	if rk.ov != nil && rk.ov.Count() != len(rk.ovIDs) {
		return fmt.Errorf("%d overrides in ov, %d listed", rk.ov.Count(), len(rk.ovIDs))
	}
	for k, n := range counts {
		if rk.ovCount != nil && rk.ovCount[k] != n {
			return fmt.Errorf("shard %d: %d overrides counted, %d listed", k, rk.ovCount[k], n)
		}
	}
	return nil
}

// CheckSummaries checks every block summary of s's shards against the
// raw columns it summarises (summaryError).
func CheckSummaries(s *Snapshot) error {
	for k, sh := range s.shards {
		for w := range numWeighers {
			if !colWeigher(w) {
				continue
			}
			col := sh.rawCol(w)
			for q := range (sh.hostCount() + kernels.Block - 1) / kernels.Block {
				lo, hi := sh.blockRange(q)
				xs := make([]float64, hi-lo)
				for i := range xs {
					xs[i] = col.At(lo + i)
				}
				if err := summaryError(xs, sh.blk.raw[w][q]); err != nil {
					return fmt.Errorf("shard %d weigher %d block %d: %v", k, w, q, err)
				}
			}
		}
	}
	return nil
}

// Warm is a Scheduler worker's kept batch (warmBatch), for tests; its
// batches rank as Ranking says.
type Warm struct {
	w       warmBatch
	Ranking Ranking
}

// Place places req on snap, a snapshot of st, as a Scheduler worker does:
// from the kept batch when it can (warm reports it).
func (w *Warm) Place(ctx context.Context, st *Store, snap *Snapshot, req Request) (plan Plan, warm bool, err error) {
	w.w.opts = w.Ranking.options()
	return w.w.place(ctx, snap, req, &st.changes)
}

// Drop lets the kept batch go.
func (w *Warm) Drop() { w.w.drop(nil) }

// CodedColumns counts the snapshot's shard columns of allocation ratios,
// limits and multipliers kept as codes and kept in full.
func CodedColumns(s *Snapshot) (coded, full int) {
	for _, sh := range s.shards {
		cols := []interface{ IsCoded() bool }{&sh.ramRatio, &sh.cpuRatio, &sh.diskRatio,
			&sh.aggRAMRatio, &sh.aggCPURatio, &sh.aggDiskRatio, &sh.maxIOOps, &sh.maxInstances}
		for w := range sh.mult {
			cols = append(cols, &sh.mult[w])
		}
		for _, c := range cols {
			if c.IsCoded() {
				coded++
			} else {
				full++
			}
		}
	}
	return coded, full
}

// KeepsAll reports, for each filter that has a keepsAll, whether it says
// the filter keeps every host for req on s.
func KeepsAll(s *Snapshot, req Request) (map[string]bool, error) {
	b, err := prepare(context.Background(), s, req, false)
	if err != nil {
		return nil, err
	}
	defer b.release()
	out := map[string]bool{}
	for name, f := range filterByName {
		if f.keepsAll != nil {
			out[name] = f.keepsAll(b)
		}
	}
	return out, nil
}

// ScoreBufsReused is how many buffers the kept full rescorings of s's
// lineage took from their free list (rankcache.go).
func ScoreBufsReused(s *Snapshot) int {
	c := &lineageOf(s.info).scores
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reused
}

// committedOf is the instances committed through a store, per host,
// sorted, from its ledger: the plain oracle of the lists the Store keeps
// as its ledger changes (committed.go).
func committedOf(ledger map[string]ledgerEntry) map[HostNode][]string {
	onHost := map[HostNode][]string{}
	for uuid, e := range ledger {
		onHost[e.host] = append(onHost[e.host], uuid)
	}
	for _, us := range onHost {
		slices.Sort(us)
	}
	return onHost
}

// CommittedMatchesLedger compares the committed instances a build of s
// would be given now (the lists the Store keeps as its ledger changes)
// with committedOf its ledger; nil when equal.
func CommittedMatchesLedger(s *Store) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.committedLocked()
	want := committedOf(s.ledger)
	if len(got) != len(want) {
		return fmt.Errorf("committed lists: %d hosts, the ledger's %d", len(got), len(want))
	}
	for hn, us := range want {
		if !slices.Equal(got[hn], us) {
			return fmt.Errorf("committed lists: host %v holds %q, the ledger %q", hn, got[hn], us)
		}
	}
	return nil
}

// DerivedMatchesBuilt compares the static host data of s's current
// snapshot (derived by its rebuilds, derive.go) with a NewSnapshot of the
// Store's cloud and committed instances, field by field; nil when equal.
// It holds right after a rebuild: the instances committed or deleted since
// join (or leave) the lists at the next one.
func DerivedMatchesBuilt(s *Store) error {
	if err := CommittedMatchesLedger(s); err != nil {
		return err
	}
	s.mu.Lock()
	built, err := newSnapshot(s.cloud, buildInput{committed: committedOf(s.ledger)})
	got := s.cur.Load().snap
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := sameHostInfo(got.info, built.info); err != nil {
		return err
	}
	if err := sameShardColumns(got, built); err != nil {
		return err
	}
	s.mu.Lock()
	want := s.groupPlacedLocked(got)
	s.mu.Unlock()
	if err := sameGroups(got.groupPlaced, want); err != nil {
		return err
	}
	return CheckSummaries(got)
}

// DerivedBuildMatches builds a snapshot of c, then one of the cloud change
// makes of it (old: each new host's id in c, -1 for a host that joins)
// derived from the first, and compares the derived one's static host data
// with a whole build's; nil when equal. Unlike a Store's rebuilds, change
// may alter the hosts and the aggregates at once.
func DerivedBuildMatches(c Cloud, change func(c Cloud) (Cloud, []int32)) error {
	prev, err := NewSnapshot(c)
	if err != nil {
		return err
	}
	next, old := change(c)
	trusted := 0
	for trusted < len(old) && old[trusted] >= 0 {
		trusted++
	}
	derived, err := newSnapshot(next, buildInput{trusted: trusted, derive: newDerivation(prev.info, old, c.Aggregates, nil)})
	if err != nil {
		return err
	}
	built, err := NewSnapshot(next)
	if err != nil {
		return err
	}
	return sameHostInfo(derived.info, built.info)
}

// sameGroups compares two server-group tables' members.
func sameGroups(got, want *groupTable) error {
	if got.len() != want.len() {
		return fmt.Errorf("%d groups with members, the ledger has %d", got.len(), want.len())
	}
	for g, m := range want.all() {
		if !maps.Equal(got.members(g), m) {
			return fmt.Errorf("group %s: members %v, the ledger's %v", g, got.members(g), m)
		}
	}
	return nil
}

// sameBits is reflect.DeepEqual of a and b (pointers to one type) but for
// float columns, compared bit for bit (a resolved ratio may be NaN).
func sameBits(a, b any) bool {
	sameFloats := func(x, y *kernels.Coded[float64]) bool {
		if x.Len() != y.Len() || x.IsCoded() != y.IsCoded() {
			return false
		}
		for i := range x.Len() {
			if math.Float64bits(x.At(i)) != math.Float64bits(y.At(i)) {
				return false
			}
		}
		return true
	}
	switch x := a.(type) {
	case *kernels.Coded[float64]:
		return sameFloats(x, b.(*kernels.Coded[float64]))
	case *[numWeighers]kernels.Coded[float64]:
		y := b.(*[numWeighers]kernels.Coded[float64])
		for w := range x {
			if !sameFloats(&x[w], &y[w]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// sameShardColumns compares the shards' columns that do not change with
// usage, field by field, and the multipliers' summary, of got and want.
func sameShardColumns(got, want *Snapshot) error {
	if len(got.shards) != len(want.shards) {
		return fmt.Errorf("%d shards, a build has %d", len(got.shards), len(want.shards))
	}
	if got.mults != want.mults {
		return fmt.Errorf("multipliers %+v, a build's %+v", got.mults, want.mults)
	}
	usage := map[string]bool{"id": true, "freeRAM": true, "freeDiskMB": true, "vcpusUsed": true, "numInstances": true,
		"numIOOps": true, "blk": true, "twins": true, "bornEscapes": true, "parent": true, "changed": true}
	for k := range got.shards {
		v, w := reflect.ValueOf(got.shards[k]).Elem(), reflect.ValueOf(want.shards[k]).Elem()
		compared := 0
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if usage[name] {
				continue
			}
			compared++
			a, b := v.Field(i), w.Field(i)
			if !sameBits(reflect.NewAt(a.Type(), a.Addr().UnsafePointer()).Interface(),
				reflect.NewAt(b.Type(), b.Addr().UnsafePointer()).Interface()) {
				return fmt.Errorf("shard %d: %s differs from a build's", k, name)
			}
		}
		if compared < 15 {
			return fmt.Errorf("compared %d fields of shard %d", compared, k)
		}
	}
	return nil
}

// KeptShards reports whether snapshot b holds a's shards, every one, and
// shares a's lineage (a rebuild that kept every shard column).
func KeptShards(a, b *Snapshot) bool {
	return a.info != b.info && slices.Equal(a.shards, b.shards) && lineageOf(a.info) == lineageOf(b.info)
}

// WhileRebuilding makes s's rebuilds call f after building their snapshot
// and before installing it, without the Store's mutex (nil: nothing).
func WhileRebuilding(s *Store, f func()) {
	s.rebuildMu.Lock() // not while a rebuild reads it
	defer s.rebuildMu.Unlock()
	if f == nil {
		s.whileRebuilding = nil
		return
	}
	s.whileRebuilding = func(*Store) { f() }
}

// PreviewMatchesBuilt compares the static host data of s.Preview(changes)
// with a NewSnapshot of the Store's cloud with the changes and its
// committed instances, as DerivedMatchesBuilt does.
func PreviewMatchesBuilt(s *Store, changes []AggregateChange) error {
	got, err := s.Preview(changes)
	if err != nil {
		return err
	}
	s.mu.Lock()
	built, err := newSnapshot(s.cloud.WithAggregates(changes), buildInput{committed: committedOf(s.ledger)})
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := sameHostInfo(got.info, built.info); err != nil {
		return err
	}
	if err := sameShardColumns(got, built); err != nil {
		return err
	}
	return CheckSummaries(got)
}

// sameHostInfo compares two hostInfos field by field, but for their memo.
func sameHostInfo(got, want *hostInfo) error {
	v, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	compared := 0
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name == "memo" { // the lineage's, filled by use
			continue
		}
		compared++
		a, b := v.Field(i), w.Field(i)
		if !reflect.DeepEqual(reflect.NewAt(a.Type(), a.Addr().UnsafePointer()).Interface(),
			reflect.NewAt(b.Type(), b.Addr().UnsafePointer()).Interface()) {
			return fmt.Errorf("hostInfo.%s differs from a build's", name)
		}
	}
	if compared < 20 {
		return fmt.Errorf("compared %d fields of hostInfo", compared)
	}
	return nil
}

// CapVerdicts builds, unmemoised, the verdict of each static extra spec of
// req (ComputeCapabilitiesFilter's) on s, with each code of a spec's lead
// column judged once (lead) or every combination judged (the baseline),
// and returns the hosts that pass them all and how many times a spec was
// judged on a host.
func CapVerdicts(s *Snapshot, req Request, lead bool) (*bitmap.Set, int, error) {
	b, err := prepare(context.Background(), s, req, false)
	if err != nil {
		return nil, 0, err
	}
	defer b.release()
	all := bitmap.NewSet(s.n)
	all.Fill()
	var evals atomic.Int64 // some builds judge hosts in parallel
	for _, c := range capSpecs(b) {
		if c.kind != capStatic {
			continue
		}
		pass, raise := bitmap.NewSet(s.n), bitmap.NewSet(s.n)
		var l func(uint32) bool
		if lead {
			l = capLead(b, &c)
		}
		eval := capEval(b, &c)
		staticVerdictInto(b, pass, raise, c.parts, func(id uint32) (bool, error) {
			evals.Add(1)
			return eval(id)
		}, l)
		all.And(pass)
	}
	return all, int(evals.Load()), nil
}

// CheckModelBounds checks every shard's summaries by hypervisor model
// (modelbounds.go), as the snapshot's hosts grouped by model keep them
// (computed on first use, or derived from the shard's parent's), against
// their computation from scratch: bit for bit where they were computed,
// bounds of them (no greater minimum, no smaller maximum) where they
// were widened. It returns how many shards so far were derived from
// their parent's (0 when the hosts are not grouped).
func CheckModelBounds(s *Snapshot) (derived int, err error) {
	mg := s.info.models()
	if mg == nil {
		return 0, nil
	}
	for k := range s.shards {
		got, want := mg.shard(s, k), mg.compute(s, k)
		for w := range numWeighers {
			for i := range want.hi[w] {
				gl, gh, wl, wh := got.lo[w][i], got.hi[w][i], want.lo[w][i], want.hi[w][i]
				ok := math.Float64bits(gl) == math.Float64bits(wl) && math.Float64bits(gh) == math.Float64bits(wh)
				if got.widened > 0 {
					ok = gl <= wl && gh >= wh
				}
				if !ok {
					return 0, fmt.Errorf("shard %d weigher %d block %d model %d (widened %d times): [%v, %v], want [%v, %v]",
						k, w, i/mg.nc, i%mg.nc, got.widened, gl, gh, wl, wh)
				}
			}
		}
	}
	mg.mu.Lock()
	defer mg.mu.Unlock()
	return mg.derived, nil
}

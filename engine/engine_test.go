package engine_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/synth"
)

func smallCloud() engine.Cloud {
	c := engine.Cloud{Config: engine.DefaultConfig()}
	for i := 0; i < 50; i++ {
		c.Hosts = append(c.Hosts, engine.Host{
			Host: "h" + string(rune('a'+i%26)) + string(rune('a'+i/26)), MemoryMB: 65536,
			FreeRAMMB: int64(1024 * (i%7 + 1)), VCPUs: 16, VCPUsUsed: int64(i % 5),
			LocalGB: 1000, FreeDiskGB: int64(100 + i), NumIOOps: int64(i % 3),
		})
	}
	return c
}

func TestValidationNamesTheField(t *testing.T) {
	neg := int64(-1)
	cases := []struct {
		name  string
		edit  func(c *engine.Cloud, r *engine.Request)
		field string
	}{
		{"unknown filter", func(c *engine.Cloud, r *engine.Request) { c.Config.Filters = []string{"RamFilter", "NopeFilter"} }, "config.filters[1]"},
		{"duplicate weigher", func(c *engine.Cloud, r *engine.Request) {
			c.Config.Weighers = []string{"RAMWeigher", "RAMWeigher"}
		}, "config.weighers[1]"},
		{"subset size", func(c *engine.Cloud, r *engine.Request) { c.Config.HostSubsetSize = 0 }, "config.host_subset_size"},
		{"negative memory", func(c *engine.Cloud, r *engine.Request) { c.Hosts[3].MemoryMB = neg }, "hosts[3].memory_mb"},
		{"duplicate host", func(c *engine.Cloud, r *engine.Request) { c.Hosts[4].Host = c.Hosts[2].Host }, "hosts[4]"},
		{"empty host", func(c *engine.Cloud, r *engine.Request) { c.Hosts[1].Host = "" }, "hosts[1].host"},
		{"negative vcpus", func(c *engine.Cloud, r *engine.Request) { r.Flavor.VCPUs = -2 }, "request.flavor.vcpus"},
		{"uuid count", func(c *engine.Cloud, r *engine.Request) { r.NumInstances, r.InstanceUUIDs = 2, []string{"a"} }, "request.instance_uuids"},
		{"duplicate uuid", func(c *engine.Cloud, r *engine.Request) { r.InstanceUUIDs = []string{"a", "b", "a"} }, "request.instance_uuids[2]"},
		// Past the bounds within which no sum overflows (it placed a
		// 9 ZB flavor on a 1 TB host) and no limit or weight is infinite.
		{"huge root disk", func(c *engine.Cloud, r *engine.Request) { r.Flavor.RootGB = 1 << 53 }, "request.flavor.root_gb"},
		{"huge negative free RAM", func(c *engine.Cloud, r *engine.Request) { c.Hosts[2].FreeRAMMB = -1<<63 + 1 }, "hosts[2].free_ram_mb"},
		{"huge free disk", func(c *engine.Cloud, r *engine.Request) { c.Hosts[3].FreeDiskGB = -1 << 53 }, "hosts[3].free_disk_gb"},
		{"huge local disk", func(c *engine.Cloud, r *engine.Request) { c.Hosts[3].LocalGB = 1<<40 + 1 }, "hosts[3].local_gb"},
		{"huge ratio", func(c *engine.Cloud, r *engine.Request) { c.Config.RAMAllocationRatio = 1e308 }, "config.ram_allocation_ratio"},
		{"huge multiplier", func(c *engine.Cloud, r *engine.Request) { c.Config.CPUWeightMultiplier = -1e308 }, "config.cpu_weight_multiplier"},
		{"huge aggregate ratio", func(c *engine.Cloud, r *engine.Request) {
			c.Aggregates = []engine.Aggregate{{Name: "a", Hosts: []string{c.Hosts[0].Host}, Metadata: map[string]string{"ram_allocation_ratio": "1e308"}}}
		}, "aggregates[0].metadata.ram_allocation_ratio"},
		// Refused before anything is allocated for the instances.
		{"too many instances", func(c *engine.Cloud, r *engine.Request) { r.NumInstances = 1 << 40 }, "request.num_instances"},
		{"too many uuids", func(c *engine.Cloud, r *engine.Request) {
			r.InstanceUUIDs = make([]string, engine.MaxInstances+1)
		}, "request.instance_uuids"},
		{"policy", func(c *engine.Cloud, r *engine.Request) {
			r.InstanceGroup = &engine.InstanceGroup{Policy: "friends"}
		}, "request.instance_group.policy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, r := smallCloud(), engine.Request{Flavor: engine.Flavor{MemoryMB: 512}}
			tc.edit(&c, &r)
			snap, err := engine.NewSnapshot(c)
			if err == nil {
				_, err = engine.PlaceBatch(context.Background(), snap, r)
			}
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalid) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			if ve.Field != tc.field || !strings.HasPrefix(err.Error(), tc.field+": ") {
				t.Fatalf("field %q (%v), want %q", ve.Field, err, tc.field)
			}
		})
	}
}

func TestDeterministicWhateverGOMAXPROCS(t *testing.T) {
	c := smallCloud()
	for i := 0; i < 9000; i++ { // several shards, parallel passes
		h := c.Hosts[i%len(c.Hosts)]
		h.Host = "big-" + strings.Repeat("x", i%3) + string(rune('0'+i%10)) + "-" + itoa(i)
		c.Hosts = append(c.Hosts, h)
	}
	c.Config.HostSubsetSize = 3
	c.Config.ShuffleBestSameWeighedHosts = true
	c.Config.Seed = 42
	snap, err := engine.NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{NumInstances: 20, Flavor: engine.Flavor{MemoryMB: 2048, VCPUs: 2, RootGB: 10}}
	var plans []engine.Plan
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		plan, err := engine.PlaceBatch(context.Background(), snap, req)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, plan)
	}
	for i := 1; i < len(plans); i++ {
		if !reflect.DeepEqual(plans[0], plans[i]) {
			t.Fatalf("plan differs with GOMAXPROCS variation (run %d)", i)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestSnapshotNeverMutated(t *testing.T) {
	snap, err := engine.NewSnapshot(smallCloud())
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{NumInstances: 30, Flavor: engine.Flavor{MemoryMB: 1024, VCPUs: 1, RootGB: 1}}
	first, err := engine.PlaceBatch(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := engine.PlaceBatch(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatal("a second PlaceBatch on the same snapshot saw the first one's consumption")
	}
}

func TestNoValidHostConsumesNothingAndExplains(t *testing.T) {
	c := smallCloud()
	c.Config.Filters = []string{engine.ComputeFilter, engine.RamFilter}
	snap, err := engine.NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	// 7 KiB instances: each host fits a few; ask for far more than the cloud holds.
	req := engine.Request{NumInstances: 2000, Flavor: engine.Flavor{MemoryMB: 7 * 1024}}
	plan, err := engine.PlaceBatch(context.Background(), snap, req)
	var nvh *engine.NoValidHostError
	if !errors.As(err, &nvh) || !errors.Is(err, engine.ErrNoValidHost) {
		t.Fatalf("got %v, want NoValidHost", err)
	}
	if len(plan.Placements) != 0 {
		t.Fatal("a failed batch returned placements")
	}
	if nvh.InstanceIndex == 0 || len(nvh.Tentative) != nvh.InstanceIndex {
		t.Fatalf("index %d with %d tentative placements", nvh.InstanceIndex, len(nvh.Tentative))
	}
	last := nvh.Filters[len(nvh.Filters)-1]
	if last.Name != engine.RamFilter || last.End != 0 || !strings.Contains(err.Error(), "RamFilter removed") {
		t.Fatalf("explanation %+v / %v does not name RamFilter", nvh.Filters, err)
	}
	for _, f := range nvh.Filters {
		if f.Name == engine.ComputeFilter {
			t.Fatal("a once-per-request filter is in a later instance's explanation")
		}
	}
	// Nothing was consumed: the same request of one instance still fits.
	if _, err := engine.PlaceBatch(context.Background(), snap, engine.Request{Flavor: req.Flavor}); err != nil {
		t.Fatal(err)
	}
}

func TestContextCancelled(t *testing.T) {
	snap, err := engine.NewSnapshot(smallCloud())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = engine.PlaceBatch(ctx, snap, engine.Request{Flavor: engine.Flavor{MemoryMB: 1}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestFilterHostsIntoChecksDst refuses a set of the wrong size, naming the
// problem, leaves dst as it was after any error (a wrong size, an invalid
// request, a cancelled context), and otherwise writes FilterHosts's set.
func TestFilterHostsIntoChecksDst(t *testing.T) {
	snap, err := engine.NewSnapshot(smallCloud())
	if err != nil {
		t.Fatal(err)
	}
	// hosts 20-49 have the disk (smallCloud)
	req := engine.Request{NumInstances: 1, Flavor: engine.Flavor{Name: "f", MemoryMB: 1, VCPUs: 1, RootGB: 120}}
	// marked holds every other host: neither what the filters pass nor empty.
	marked := func(n int) *bitmap.Set {
		s := bitmap.NewSet(n)
		for i := 0; i < n; i += 2 {
			s.Add(uint32(i))
		}
		return s
	}
	for _, dst := range []*bitmap.Set{nil, marked(snap.Len() + 1), marked(snap.Len() - 1)} {
		var before *bitmap.Set
		if dst != nil {
			before = dst.Clone()
		}
		if _, err := engine.FilterHostsInto(context.Background(), snap, req, dst); !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "dst") {
			t.Errorf("dst %v: err %v", dst, err)
		}
		if dst != nil && !dst.Equal(before) {
			t.Errorf("dst over %d hosts changed by a refused call", dst.Len())
		}
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bad := req
	bad.NumInstances = -1
	for _, c := range []struct {
		name string
		ctx  context.Context
		req  engine.Request
	}{{"invalid request", context.Background(), bad}, {"cancelled", cancelled, req}} {
		dst, before := marked(snap.Len()), marked(snap.Len())
		if _, err := engine.FilterHostsInto(c.ctx, snap, c.req, dst); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if !dst.Equal(before) {
			t.Errorf("%s: dst changed by a failed call", c.name)
		}
	}
	dst := marked(snap.Len())
	counts, err := engine.FilterHostsInto(context.Background(), snap, req, dst)
	want, wantCounts, _ := engine.FilterHosts(context.Background(), snap, req)
	if err != nil || !dst.Equal(want) || !reflect.DeepEqual(counts, wantCounts) {
		t.Errorf("FilterHostsInto: %v, hosts %v counts %v, want %v %v", err, dst.AppendTo(nil), counts, want.AppendTo(nil), wantCounts)
	}
	if want.Count() == 0 || want.Count() == snap.Len() {
		t.Fatalf("the filters pass %d of %d hosts: the comparison would not tell a copy from a fill", want.Count(), snap.Len())
	}
}

// TestEntryPointsCheckTheirInputs: every call on a snapshot refuses nil
// and a zero Snapshot with a *ValidationError (not a nil dereference),
// WeighHosts a set of the wrong size, and each honours a cancelled
// context.
func TestEntryPointsCheckTheirInputs(t *testing.T) {
	snap, err := engine.NewSnapshot(smallCloud())
	if err != nil {
		t.Fatal(err)
	}
	req := engine.Request{NumInstances: 1, Flavor: engine.Flavor{Name: "f", MemoryMB: 1, VCPUs: 1}}
	bg := context.Background()
	calls := map[string]func(context.Context, *engine.Snapshot) error{
		"PlaceBatch": func(ctx context.Context, s *engine.Snapshot) error {
			_, err := engine.PlaceBatch(ctx, s, req)
			return err
		},
		"FilterHosts": func(ctx context.Context, s *engine.Snapshot) error {
			_, _, err := engine.FilterHosts(ctx, s, req)
			return err
		},
		"WeighHosts": func(ctx context.Context, s *engine.Snapshot) error {
			set := bitmap.NewSet(snap.Len())
			set.Fill()
			_, err := engine.WeighHosts(ctx, s, req, set)
			return err
		},
		"Explain": func(ctx context.Context, s *engine.Snapshot) error {
			_, err := engine.Explain(ctx, s, req, engine.ExplainOptions{})
			return err
		},
		"Capacity": func(ctx context.Context, s *engine.Snapshot) error {
			_, err := engine.Capacity(ctx, s, req, engine.CapacityOptions{Max: 3})
			return err
		},
	}
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	for name, call := range calls {
		for _, s := range []*engine.Snapshot{nil, {}} {
			if err := call(bg, s); !errors.Is(err, engine.ErrInvalid) {
				t.Errorf("%s on %v: %v, want a *ValidationError", name, s, err)
			}
		}
		if err := call(bg, snap); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if err := call(cancelled, snap); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled: %v, want context.Canceled", name, err)
		}
	}
	for _, set := range []*bitmap.Set{nil, bitmap.NewSet(snap.Len() - 1), bitmap.NewSet(snap.Len() + 1)} {
		if _, err := engine.WeighHosts(bg, snap, req, set); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("WeighHosts on a set over %v hosts: %v", set, err)
		}
	}
	if _, err := engine.WeighHosts(bg, nil, req, nil); !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("WeighHosts without a snapshot or a set: %v", err)
	}
	if snap.Len()%64 != 0 { // a bit past the last host, in its word (Set.Add does not check)
		phantom := bitmap.NewSet(snap.Len())
		phantom.Add(uint32(snap.Len()))
		if _, err := engine.WeighHosts(bg, snap, req, phantom); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("WeighHosts on a set holding id %d of %d hosts: %v", snap.Len(), snap.Len(), err)
		}
	} else {
		t.Fatalf("the test's snapshot has %d hosts, a multiple of 64: no phantom bit to plant", snap.Len())
	}
}

// TestConfigIsACopy checks that changing what Snapshot.Config returns,
// its slices included, changes neither the snapshot's configuration nor
// its placements.
func TestConfigIsACopy(t *testing.T) {
	cloud, req := synth.Scenario(synth.Options{Hosts: 200, Instances: 3, Seed: 5, Profile: synth.Basic})
	snap, err := engine.NewSnapshot(cloud)
	if err != nil {
		t.Fatal(err)
	}
	before, err := engine.PlaceBatch(context.Background(), snap, req)
	if err != nil {
		t.Fatal(err)
	}
	cfg := snap.Config()
	want := fmt.Sprint(cfg)
	for i := range cfg.Filters {
		cfg.Filters[i] = engine.AllHostsFilter
	}
	for i := range cfg.Weighers {
		cfg.Weighers[i] = engine.WeigherCatalogue[0]
	}
	if got := fmt.Sprint(snap.Config()); got != want {
		t.Fatalf("Config changed through a returned copy:\n got %s\nwant %s", got, want)
	}
	after, err := engine.PlaceBatch(context.Background(), snap, req)
	if err != nil || !reflect.DeepEqual(before.Placements, after.Placements) {
		t.Fatalf("placements changed after editing a copy of the config: %v", err)
	}
}

// TestHostIDsOutOfRangePanic: the calls taking a host id panic, naming
// the range, for an id past the snapshot's hosts, rather than answer
// from the last shard's unused rows.
func TestHostIDsOutOfRangePanic(t *testing.T) {
	s, err := engine.NewStore(smallCloud(), engine.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap := s.Snapshot()
	n := uint32(snap.Len())
	for name, call := range map[string]func(id uint32){
		"Usage":      func(id uint32) { snap.Usage(id) },
		"Capacity":   func(id uint32) { snap.Capacity(id) },
		"HostNode":   func(id uint32) { snap.HostNode(id) },
		"Generation": func(id uint32) { s.Generation(id) },
	} {
		call(n - 1)
		for _, id := range []uint32{n, n + 13, 1 << 31} {
			func() {
				defer func() {
					if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "out of range [0, 50)") {
						t.Errorf("%s(%d): recovered %v", name, id, r)
					}
				}()
				call(id)
			}()
		}
	}
}

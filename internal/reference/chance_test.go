package reference

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The parts of nova/tests/unit/scheduler/test_chance_scheduler.py
// (rocky-eol) that call ChanceScheduler._filter_hosts and _schedule
// directly, with return_alternates, which select_destinations never passes
// on: transcribed against chanceFilterHosts and chanceSchedule.

func chanceHosts(n int) []*HostState {
	var hs []*HostState
	for i := range n {
		hs = append(hs, &HostState{Index: i, Host: "host" + itoaRef(i), Nodename: "fake_node"})
	}
	return hs
}

func itoaRef(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoaRef(i/10) + string(rune('0'+i%10))
}

func hostNames(hs []*HostState) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Host)
	}
	return out
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// test_filter_hosts_avoid, test_filter_hosts_no_avoid.
func TestChanceFilterHosts(t *testing.T) {
	hosts := []*HostState{{Host: "host1"}, {Host: "host2"}, {Host: "host3"}}
	if got := hostNames(chanceFilterHosts(hosts, []string{"host2"})); !slices.Equal(got, []string{"host1", "host3"}) {
		t.Errorf("avoid: %v", got)
	}
	if got := hostNames(chanceFilterHosts(hosts, nil)); !slices.Equal(got, []string{"host1", "host2", "host3"}) {
		t.Errorf("no avoid: %v", got)
	}
}

// test_schedule_success_single_instance.
func TestChanceScheduleSingleInstance(t *testing.T) {
	hosts := chanceHosts(20)
	for seed := uint64(0); seed < 10; seed++ {
		for _, tc := range []struct {
			attempts int
			alts     bool
			want     int
		}{
			{2, true, 2},                       // max_attempts 2: the host and 1 alternate
			{len(hosts) + 1, true, len(hosts)}, // more attempts than hosts: as many as hosts
			{5, false, 1},                      // return_alternates False: the host alone
		} {
			got := chanceSchedule(newRNG(seed), hosts, 1, tc.attempts, tc.alts)
			if len(got) != 1 || len(got[0]) != tc.want {
				t.Errorf("seed %d, max_attempts %d, alternates %v: %d lists, first of %d, want 1 of %d",
					seed, tc.attempts, tc.alts, len(got), len(got[0]), tc.want)
			}
		}
	}
}

// test_schedule_success_multiple_instances: max_attempts entries per
// instance, distinct selected hosts, none of them an alternate.
func TestChanceScheduleMultipleInstances(t *testing.T) {
	hosts := chanceHosts(20)
	for seed := uint64(0); seed < 10; seed++ {
		for _, attempts := range []int{2, 4} {
			got := chanceSchedule(newRNG(seed), hosts, 4, attempts, true)
			if len(got) != 4 {
				t.Fatalf("%d lists", len(got))
			}
			var selected []*HostState
			for _, l := range got {
				if len(l) != attempts {
					t.Errorf("seed %d: %d entries, want %d", seed, len(l), attempts)
				}
				if slices.Contains(selected, l[0]) {
					t.Errorf("seed %d: %s selected twice", seed, l[0].Host)
				}
				selected = append(selected, l[0])
			}
			for _, l := range got {
				for _, a := range l[1:] {
					if slices.Contains(selected, a) {
						t.Errorf("seed %d: selected %s is an alternate", seed, a.Host)
					}
				}
			}
		}
	}
}

// Rocky's "candidate not in sel_plus_alts" compares a HostState with
// Selection objects and is always true, so alternates may repeat; and
// where every host is selected Nova would draw forever, the reference
// gives no alternate.
func TestChanceScheduleRockyQuirks(t *testing.T) {
	hosts := chanceHosts(20)
	repeated := false
	for seed := uint64(0); seed < 20 && !repeated; seed++ {
		l := chanceSchedule(newRNG(seed), hosts, 1, 21, true)[0]
		seen := map[*HostState]bool{}
		for _, a := range l[1:] {
			repeated = repeated || seen[a]
			seen[a] = true
		}
	}
	if !repeated {
		t.Error("no alternate repeated over 20 seeds")
	}
	got := chanceSchedule(newRNG(1), chanceHosts(2), 2, 3, true)
	if len(got) != 2 || len(got[0]) != 1 || len(got[1]) != 1 {
		t.Errorf("every host selected: %v", got)
	}
}

// Fewer hosts than instances: random.choice per instance.
func TestChanceScheduleRepeats(t *testing.T) {
	hosts := chanceHosts(2)
	got := chanceSchedule(newRNG(3), hosts, 5, 3, false)
	rng := newRNG(3)
	for i, l := range got {
		if want := hosts[rng.IntN(2)]; l[0] != want || len(l) != 1 {
			t.Errorf("instance %d: %s, want %s", i, l[0].Host, want.Host)
		}
	}
}

package bitmap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestSetAgainstMap(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, ShardSize - 1, ShardSize, 3*ShardSize + 17} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		s := NewSet(n)
		want := map[uint32]bool{}
		for k := 0; k < 3*n; k++ {
			i := uint32(rng.IntN(n + 1))
			if int(i) == n {
				continue
			}
			if rng.IntN(3) == 0 {
				s.Remove(i)
				delete(want, i)
			} else {
				s.Add(i)
				want[i] = true
			}
		}
		if s.Count() != len(want) {
			t.Fatalf("n=%d: Count %d, want %d", n, s.Count(), len(want))
		}
		if s.Any() != (len(want) > 0) {
			t.Fatalf("n=%d: Any %v with %d hosts", n, s.Any(), len(want))
		}
		if n > 0 { // the last host alone
			one := NewSet(n)
			one.Add(uint32(n - 1))
			if !one.Any() {
				t.Fatalf("n=%d: Any false with the last host in the set", n)
			}
			one.Reset()
			if one.Any() {
				t.Fatalf("n=%d: Any true on an empty set", n)
			}
		}
		var got []uint32
		for i := s.Next(0); i >= 0; i = s.Next(i + 1) {
			got = append(got, uint32(i))
		}
		if len(got) != len(want) {
			t.Fatalf("n=%d: Next walked %d hosts, want %d", n, len(got), len(want))
		}
		for k, i := range got {
			if !want[i] || (k > 0 && got[k-1] >= i) {
				t.Fatalf("n=%d: Next order or content wrong at %d", n, i)
			}
		}
		all := s.AppendTo(nil)
		if len(all) != len(got) {
			t.Fatalf("n=%d: AppendTo %d, Next %d", n, len(all), len(got))
		}
		for k, i := range all {
			if sel := s.Select(k); sel != int(i) {
				t.Fatalf("n=%d: Select(%d) = %d, want %d", n, k, sel, i)
			}
		}
		if sel := s.Select(len(all)); sel != -1 {
			t.Fatalf("n=%d: Select past the end = %d", n, sel)
		}
		if sel := s.Select(-1); sel != -1 {
			t.Fatalf("n=%d: Select(-1) = %d", n, sel)
		}
		full := NewSet(n) // every word's 64 bits set, the tail's trimmed
		full.Fill()
		for k := range n {
			if sel := full.Select(k); sel != k {
				t.Fatalf("n=%d: Select(%d) of a full set = %d", n, k, sel)
			}
		}
		if sel := full.Select(n); sel != -1 {
			t.Fatalf("n=%d: Select(%d) of a full set = %d, want -1", n, n, sel)
		}
	}
}

func TestFillTrimsTail(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 130} {
		s := NewSet(n)
		s.Fill()
		if s.Count() != n {
			t.Errorf("n=%d: Fill count %d", n, s.Count())
		}
		if s.Next(n-1) != n-1 || s.Next(n) != -1 {
			t.Errorf("n=%d: Next past the end", n)
		}
	}
}

func TestSetAlgebra(t *testing.T) {
	a, b := NewSet(200), NewSet(200)
	for i := uint32(0); i < 200; i += 2 {
		a.Add(i)
	}
	for i := uint32(0); i < 200; i += 3 {
		b.Add(i)
	}
	and := a.Clone()
	if !and.And(b) {
		t.Fatal("And reports no host removed")
	}
	if again := and.Clone(); again.And(b) || !again.Equal(and) {
		t.Fatal("And of a subset removed a host, or says so")
	}
	or := a.Clone()
	or.Or(b)
	andNot := a.Clone()
	andNot.AndNot(b)
	for i := uint32(0); i < 200; i++ {
		if and.Has(i) != (i%2 == 0 && i%3 == 0) || or.Has(i) != (i%2 == 0 || i%3 == 0) ||
			andNot.Has(i) != (i%2 == 0 && i%3 != 0) {
			t.Fatalf("algebra wrong at %d", i)
		}
	}
	if !and.Equal(and.Clone()) || and.Equal(or) {
		t.Fatal("Equal wrong")
	}
}

func TestRoaringHelpers(t *testing.T) {
	rb := roaring.New()
	for i := uint32(0); i < 10000; i += 7 {
		rb.Add(i)
	}
	rb.RunOptimize()
	s := FromRoaring(10000, rb)
	if s.Count() != int(rb.GetCardinality()) || !s.Has(7) || s.Has(8) {
		t.Fatal("FromRoaring lost hosts")
	}
	OrInto(s, nil)
	OrInto(s, roaring.BitmapOf(8))
	if !s.Has(8) {
		t.Fatal("OrInto did not add")
	}
	other := NewSet(10000)
	if IntersectsRoaring(other, rb) {
		t.Fatal("empty set intersects")
	}
	other.Add(14)
	if !IntersectsRoaring(other, rb) || IntersectsRoaring(other, roaring.BitmapOf(15)) {
		t.Fatal("IntersectsRoaring wrong")
	}
	if !s.Intersects(other) || NewSet(10000).Intersects(other) {
		t.Fatal("Intersects wrong")
	}
}

func TestForShardsVisitsEveryShardOnce(t *testing.T) {
	for _, n := range []int{0, 10, ParallelMinHosts, 10*ShardSize + 1} {
		var seen = make([]atomic.Int32, (n+ShardSize-1)/ShardSize)
		if err := ForShards(context.Background(), n, func(k int) error {
			seen[k].Add(1)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for k := range seen {
			if seen[k].Load() != 1 {
				t.Fatalf("n=%d shard %d visited %d times", n, k, seen[k].Load())
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ForShards(ctx, 10*ShardSize, func(int) error { return nil }); err == nil {
		t.Fatal("cancelled context not reported")
	}
}

// TestForShardsLowestErrorWins checks that the error returned is the
// lowest failing shard's, whatever the scheduling, and that shards above
// it may be skipped but never those below.
func TestForShardsLowestErrorWins(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	n := 16 * ShardSize
	for rep := 0; rep < 200; rep++ {
		failAt := map[int]bool{3 + rep%5: true, 11: true, 14 - rep%3: true}
		lowest := 16
		for k := range failAt {
			lowest = min(lowest, k)
		}
		var below atomic.Int32
		err := ForShards(context.Background(), n, func(k int) error {
			if k < lowest {
				below.Add(1)
			}
			if failAt[k] {
				return fmt.Errorf("shard %d", k)
			}
			return nil
		})
		if err == nil || err.Error() != fmt.Sprintf("shard %d", lowest) {
			t.Fatalf("rep %d: got %v, want the error of shard %d", rep, err, lowest)
		}
		if int(below.Load()) != lowest {
			t.Fatalf("rep %d: %d of the %d shards below the failure ran", rep, below.Load(), lowest)
		}
	}
}

// TestForShardsConcurrentAndParked runs passes from many goroutines at once
// (one has the helpers, the others run alone), with helpers that park after
// every pass and with polling helpers, and checks that each pass saw every
// shard exactly once and that polling helpers did take shards.
func TestForShardsConcurrentAndParked(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, spin := range []time.Duration{0, DefaultHelperSpin} {
		old := SetHelperSpin(spin)
		n := 12 * ShardSize
		var helped atomic.Int32
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for rep := range 50 {
					seen := make([]atomic.Int32, 12)
					caller := getGoroutineMarker()
					if err := ForShards(context.Background(), n, func(k int) error {
						seen[k].Add(1)
						time.Sleep(20 * time.Microsecond) // long enough for a polling helper to join
						if getGoroutineMarker() != caller {
							helped.Add(1)
						}
						return nil
					}); err != nil {
						t.Error(err)
						return
					}
					for k := range seen {
						if c := seen[k].Load(); c != 1 {
							t.Errorf("goroutine %d rep %d: shard %d visited %d times", g, rep, k, c)
						}
					}
				}
			}()
		}
		wg.Wait()
		SetHelperSpin(old)
		if spin > 0 && helped.Load() == 0 {
			t.Errorf("spin %v: no shard ran on a helper", spin)
		}
	}
}

// getGoroutineMarker identifies the calling goroutine (its stack's first
// line holds its id).
func getGoroutineMarker() string {
	var buf [32]byte
	n := runtime.Stack(buf[:], false)
	return string(buf[:n])
}

// TestForShardsPanic: a shard whose function panics, on the caller's
// goroutine or a helper's, makes ForShards panic with its value once the
// pass is over: no shard runs after it returns, the process survives a
// helper's panic, and the helpers serve the next pass (it runs in
// parallel). The pass's owner never released the helpers after a panic
// of its own, and they went on running its shards into memory the caller
// had moved on from.
func TestForShardsPanic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer SetHelperSpin(SetHelperSpin(DefaultHelperSpin))
	n := 16 * ShardSize
	for _, where := range []string{"caller", "helper"} {
		var returned atomic.Bool
		var late atomic.Int32
		caller := getGoroutineMarker()
		func() {
			defer func() {
				returned.Store(true)
				p, ok := recover().(*ShardPanic)
				if !ok || p.Value != "boom" || !strings.Contains(string(p.Stack), "TestForShardsPanic") {
					t.Errorf("%s: recovered %v, want a ShardPanic of boom with the stack of its shard", where, p)
				}
			}()
			helperRan := make(chan struct{})
			var once sync.Once
			ForShards(context.Background(), n, func(k int) error {
				if returned.Load() {
					late.Add(1)
				}
				onCaller := getGoroutineMarker() == caller
				if !onCaller {
					once.Do(func() { close(helperRan) })
				}
				if onCaller == (where == "caller") && k != 0 {
					panic("boom")
				}
				if onCaller && where == "helper" {
					select { // leave the helper shards to take, even on a busy machine
					case <-helperRan:
					case <-time.After(5 * time.Second):
					}
				}
				time.Sleep(50 * time.Microsecond)
				return nil
			})
		}()
		time.Sleep(20 * time.Millisecond) // a helper still running would show here
		if l := late.Load(); l != 0 {
			t.Errorf("%s: %d shards ran after ForShards returned", where, l)
		}
		if helpers.owned.Load() {
			t.Fatalf("%s: the helpers are still held by the pass that panicked", where)
		}
		var helped atomic.Int32
		if err := ForShards(context.Background(), n, func(int) error {
			time.Sleep(50 * time.Microsecond)
			if getGoroutineMarker() != caller {
				helped.Add(1)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if helped.Load() == 0 {
			t.Errorf("%s: the next pass ran on the caller alone", where)
		}
	}
}

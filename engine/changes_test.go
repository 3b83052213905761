package engine

import (
	"slices"
	"testing"
)

func TestChangeLog(t *testing.T) {
	var l changeLog
	l.reset(10)
	for v := uint64(11); v <= 20; v++ {
		l.add(v, []uint32{uint32(v), uint32(v + 100)})
	}
	got, ok := l.since(17, 19, nil)
	if want := []uint32{18, 118, 19, 119}; !ok || !slices.Equal(got, want) {
		t.Fatalf("since(17, 19) = %v %v, want %v", got, ok, want)
	}
	if got, ok := l.since(20, 20, nil); !ok || len(got) != 0 {
		t.Fatalf("since(20, 20) = %v %v, want nothing", got, ok)
	}
	if _, ok := l.since(9, 20, nil); ok {
		t.Fatal("since(9, 20) covers versions before the reset")
	}
	// Past maxChangeEntries the oldest entries go: versions before the
	// last dropped one are no longer covered, later ones still are.
	for v := uint64(21); v < 11+maxChangeEntries+1; v++ {
		l.add(v, []uint32{uint32(v)})
	}
	if _, ok := l.since(11, 30, nil); ok {
		t.Fatal("since(11, ...) still covered after its entries were dropped")
	}
	floor := l.floor
	got, ok = l.since(floor, floor+2, nil)
	if want := []uint32{uint32(floor + 1), uint32(floor + 2)}; !ok || !slices.Equal(got, want) {
		t.Fatalf("since(floor, floor+2) = %v %v, want %v", got, ok, want)
	}
}

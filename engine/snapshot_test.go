package engine

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestDeriveCopiesEveryField checks that a snapshot a Store derives
// carries every field of its parent, but for those derive renews (its
// version, its scratch pool, its own copy of the shards' slice). The
// parent has a value in every field, so that a field derive failed to
// carry over would show; a field added to Snapshot without a value here
// fails the test until it is given one.
func TestDeriveCopiesEveryField(t *testing.T) {
	c := Cloud{Config: DefaultConfig()}
	for i := range 3 {
		c.Hosts = append(c.Hosts, Host{Host: fmt.Sprint("h", i), MemoryMB: 1024, FreeRAMMB: 1024, VCPUs: 2, LocalGB: 10, FreeDiskGB: 10})
	}
	parent, err := NewSnapshot(c)
	if err != nil {
		t.Fatal(err)
	}
	parent.delta = &usageDelta{ids: []uint32{1}, res: []hostRes{{freeRAM: 512}}}
	parent.groupPlaced = setGroupPlaced(nil, nil, "g", "inst", "h1")
	field := func(v reflect.Value, i int) any {
		f := v.Field(i)
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	}
	pv := reflect.ValueOf(parent).Elem()
	for i := range pv.NumField() {
		if pv.Field(i).IsZero() {
			t.Fatalf("the parent's %s is zero: give it a value, so that derive is seen to carry it", pv.Type().Field(i).Name)
		}
	}
	d := parent.derive()
	dv := reflect.ValueOf(d).Elem()
	for i := range pv.NumField() {
		name := pv.Type().Field(i).Name
		switch name {
		case "version":
			if d.version <= parent.version {
				t.Errorf("derived version %d, parent's %d", d.version, parent.version)
			}
		case "pool":
			if d.pool == nil || d.pool == parent.pool {
				t.Errorf("derived pool %p, parent's %p: want a pool of its own", d.pool, parent.pool)
			}
		case "shards":
			if !reflect.DeepEqual(d.shards, parent.shards) || &d.shards[0] == &parent.shards[0] {
				t.Errorf("derived shards %p, parent's %p: want a copy of the slice", d.shards, parent.shards)
			}
		default:
			if !reflect.DeepEqual(field(dv, i), field(pv, i)) {
				t.Errorf("derived %s differs from the parent's", name)
			}
		}
	}
}

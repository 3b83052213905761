package engine

import "testing"

// TestTextCol checks that a column gives back every text as set, nil
// where none was, and shares equal texts.
func TestTextCol(t *testing.T) {
	str := func(s string) *string { return &s }
	in := []*string{str("10.0.0.1"), nil, str(""), str("10.0.0.1"), str("x"), nil}
	b := newTextColBuilder(len(in))
	for id, p := range in {
		b.set(uint32(id), p)
	}
	c := b.done()
	checkReadsBack(t, in, c.get)
	if c.get(0) != c.get(3) || len(c.texts) != 3 {
		t.Errorf("equal texts not shared: %q", c.texts)
	}
	empty := newTextColBuilder(3)
	empty.set(1, nil)
	if e := empty.done(); e.idx != nil || e.get(1) != nil {
		t.Errorf("a column with no text keeps %v", e)
	}
}

// TestHVModels checks that hosts reporting the same hypervisor attributes
// share a model, that nil and a value stay apart, and that one cpu_info
// text has one pointer.
func TestHVModels(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	var m hvModels
	a := m.of(str("QEMU"), i64(6002000), str("{}"))
	if b := m.of(str("QEMU"), i64(6002000), str("{}")); b != a {
		t.Errorf("equal attributes got models %d and %d", a, b)
	}
	for _, other := range []int32{
		m.of(nil, i64(6002000), str("{}")),
		m.of(str("QEMU"), nil, str("{}")),
		m.of(str("QEMU"), i64(0), str("{}")),
		m.of(str("QEMU"), i64(6002000), nil),
		m.of(str(""), i64(6002000), str("{}")),
		m.of(str("QEMU"), i64(6002000), str("")),
	} {
		if other == a {
			t.Errorf("different attributes share model %d", a)
		}
	}
	c := m.of(str("xen"), nil, str("{}"))
	if m.models[c].cpuInfo != m.models[a].cpuInfo {
		t.Errorf("one cpu_info text, two pointers")
	}
	if md := m.models[a]; *md.typ != "QEMU" || *md.version != 6002000 || *md.cpuInfo != "{}" {
		t.Errorf("model %d = %v", a, md)
	}
	if md := m.models[m.of(nil, nil, nil)]; md.typ != nil || md.version != nil || md.cpuInfo != nil {
		t.Errorf("nothing reported gives %v", md)
	}
}

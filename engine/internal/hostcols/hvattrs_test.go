package hostcols

import "testing"

// TestTextCol checks that a column gives back every text as set, nil
// where none was, and shares equal texts.
func TestTextCol(t *testing.T) {
	str := func(s string) *string { return &s }
	in := []*string{str("10.0.0.1"), nil, str(""), str("10.0.0.1"), str("x"), nil}
	b := NewTextsBuilder(len(in))
	for id, p := range in {
		b.Set(uint32(id), p)
	}
	c := b.Done()
	checkReadsBack(t, in, c.Get)
	if c.Get(0) != c.Get(3) || len(c.texts) != 3 {
		t.Errorf("equal texts not shared: %q", c.texts)
	}
	empty := NewTextsBuilder(3)
	empty.Set(1, nil)
	if e := empty.Done(); e.idx != nil || e.Get(1) != nil {
		t.Errorf("a column with no text keeps %v", e)
	}
}

// TestHVModels checks that hosts reporting the same hypervisor attributes
// share a model, that nil and a value stay apart, and that one cpu_info
// text has one pointer.
func TestHVModels(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(v int64) *int64 { return &v }
	var m HVModels
	a := m.Of(str("QEMU"), i64(6002000), str("{}"))
	if b := m.Of(str("QEMU"), i64(6002000), str("{}")); b != a {
		t.Errorf("equal attributes got models %d and %d", a, b)
	}
	for _, other := range []int32{
		m.Of(nil, i64(6002000), str("{}")),
		m.Of(str("QEMU"), nil, str("{}")),
		m.Of(str("QEMU"), i64(0), str("{}")),
		m.Of(str("QEMU"), i64(6002000), nil),
		m.Of(str(""), i64(6002000), str("{}")),
		m.Of(str("QEMU"), i64(6002000), str("")),
	} {
		if other == a {
			t.Errorf("different attributes share model %d", a)
		}
	}
	c := m.Of(str("xen"), nil, str("{}"))
	if m.models[c].CPUInfo != m.models[a].CPUInfo {
		t.Errorf("one cpu_info text, two pointers")
	}
	if md := m.models[a]; *md.Type != "QEMU" || *md.Version != 6002000 || *md.CPUInfo != "{}" {
		t.Errorf("model %d = %v", a, md)
	}
	if md := m.models[m.Of(nil, nil, nil)]; md.Type != nil || md.Version != nil || md.CPUInfo != nil {
		t.Errorf("nothing reported gives %v", md)
	}
}

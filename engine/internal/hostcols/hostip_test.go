package hostcols

import "testing"

// TestIPCol checks that every host_ip reads back as it was given: IPv4
// text kept as 4 bytes, anything else as text, nil as nil.
func TestIPCol(t *testing.T) {
	str := func(s string) *string { return &s }
	in := []*string{
		str("10.0.0.1"), nil, str("0.0.0.0"), str("255.255.255.255"), str("192.168.100.25"),
		str("10.01.0.1"), str("010.0.0.1"), str("256.0.0.1"), str("1.2.3"), str("1.2.3.4.5"),
		str("1..2.3"), str(".1.2.3"), str("1.2.3."), str("::1"), str("fe80::1"), str(""),
		str(" 1.2.3.4"), str("1.2.3.4 "), str("+1.2.3.4"), str("1.2.3.4444"), str("10.0.0.1"),
	}
	b := NewIPsBuilder(len(in))
	for id, p := range in {
		b.Set(uint32(id), p)
	}
	c := b.Done()
	checkReadsBack(t, in, c.Get)
	if n := c.isV4.Count(); n != 5 {
		t.Errorf("%d addresses kept as IPv4, want 5", n)
	}
	// Copied host by host, in reverse: every address as it was given.
	d := NewIPsBuilder(len(in))
	rev := make([]*string, len(in))
	for id := range in {
		j := len(in) - 1 - id
		d.SetFrom(uint32(id), &c, uint32(j))
		rev[id] = in[j]
	}
	dc := d.Done()
	checkReadsBack(t, rev, dc.Get)
	if n := dc.isV4.Count(); n != 5 {
		t.Errorf("%d addresses copied as IPv4, want 5", n)
	}
	if c := NewIPsBuilder(2).Done(); c.Get(1) != nil {
		t.Errorf("an empty column reads %v", c.Get(1))
	}
}

// checkReadsBack checks that get gives back every text of in by its id,
// nil where in has nil.
func checkReadsBack(t *testing.T, in []*string, get func(id uint32) *string) {
	t.Helper()
	for id, p := range in {
		got := get(uint32(id))
		if (got == nil) != (p == nil) || got != nil && *got != *p {
			t.Errorf("get(%d) = %v, want %v", id, got, p)
		}
	}
}

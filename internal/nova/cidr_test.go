package nova

import (
	"errors"
	"testing"
)

// TestSimpleCIDR: expected values (or the exception) came from running
// Nova 26's SimpleCIDRAffinityFilter with netaddr 0.8 on the same hints.
func TestSimpleCIDR(t *testing.T) {
	cases := []struct {
		hostIP     *string
		near, cidr string
		want       string
	}{
		{strPtr("10.0.0.200"), "10.0.0.5", "/24", "True"},
		{strPtr("10.0.1.1"), "10.0.0.5", "/24", "False"},
		{strPtr("10.0.0.9"), "10.0.0.5", "/255.255.255.0", "True"},
		{strPtr("10.0.0.9"), "10.0.0.5", "/0.0.0.255", "True"},
		{strPtr("10.0.0.5"), "10.0.0.5", "/33", "AddrFormatError"},
		{strPtr("10.0.0.5"), "10.0.0.5", "24", "AddrFormatError"},
		{strPtr("10.0.3.3"), "10.0", "/16", "True"},
		{strPtr("::ffff:10.0.0.7"), "10.0.0.5", "/24", "False"},
		{strPtr("10.0.0.7"), "::ffff:10.0.0.5", "/120", "False"},
		{strPtr("2001:db8::ffff"), "2001:db8::1", "/64", "True"},
		{strPtr("10.0.0.1"), "2001:db8::1", "/24", "False"},
		{strPtr("1.2.3.4"), "10.0.0.5", "/0", "True"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/ 24", "True"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/024", "True"},
		{strPtr("010.0.0.1"), "10.0.0.5", "/24", "False"},
		{strPtr("10.0.0.1"), "010.0.0.5", "/24", "True"},
		{nil, "10.0.0.5", "/24", "AddrFormatError"},
		{strPtr("10.0.0.1"), "bad", "/24", "AddrFormatError"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/24x", "AddrFormatError"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/255.0.255.0", "AddrFormatError"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/+24", "True"},
		{strPtr("1.0.0.1"), "1", "/8", "True"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/32", "False"},
		{strPtr("10.0.0.5"), "10.0.0.5", "/32", "True"},
		{strPtr("10.0.0.1"), "10.0.0.5", "/", "AddrFormatError"},
		{strPtr("10.1.0.1"), "10.0.0.5", "/15", "True"},
		{strPtr("10.2.0.1"), "10.0.0.5", "/15", "False"},
		{strPtr("10.0.0.1 x"), "10.0.0.5", "/24", "True"},
		{strPtr("10.0.0.1"), "", "/8", "True"},
		{strPtr("10.0.1.1"), "10.0.0.5", DefaultCIDR, "False"},
		{strPtr("10.0.0.9"), "10.0.0.5", DefaultCIDR, "True"},
		// A cidr hint given as "": IPNetwork of the address alone.
		{strPtr("10.0.0.9"), "10.0.0.5", "", "False"},
		{strPtr("10.0.0.5"), "10.0.0.5", "", "True"},
		{strPtr("10.0.0.0"), "10.0", "", "True"},
		{strPtr("2001:db8::1"), "2001:db8::1", "", "True"},
		{strPtr("2001:db8::2"), "2001:db8::1", "", "False"},
		// A second "/": IPAddress() of the prefix raises ValueError,
		// which IPNetwork lets through, once the address before the
		// first parses (for either version); else AddrFormatError.
		{strPtr("10.0.0.1"), "10.0.0.0/8", "/24", "ValueError"},
		{strPtr("10.0.0.1"), "10.0.0.1/", "/24", "ValueError"},
		{strPtr("10.0.0.1"), "::1/64", "/24", "ValueError"},
		{strPtr("10.0.0.1"), "10/8", "/24", "ValueError"},
		{strPtr("10.0.0.1"), "a/b", "/24", "AddrFormatError"},
	}
	for _, tc := range cases {
		name := "nil"
		if tc.hostIP != nil {
			name = *tc.hostIP
		}
		t.Run(name+"|"+tc.near+tc.cidr, func(t *testing.T) {
			got, err := SimpleCIDRCheck(tc.hostIP, tc.near, tc.cidr)
			if tc.want != "True" && tc.want != "False" {
				var pe *ErrPython
				if !errors.As(err, &pe) || pe.Exception != tc.want {
					t.Fatalf("SimpleCIDRCheck = %v, %v; want %s", got, err, tc.want)
				}
				return
			}
			if err != nil || got != (tc.want == "True") {
				t.Fatalf("SimpleCIDRCheck = %v, %v; want %s", got, err, tc.want)
			}
			if SimpleCIDRPass(tc.hostIP, tc.near, tc.cidr) != got {
				t.Fatal("Pass disagrees with Check")
			}
		})
	}
}

// TestParseHostIP: canonical texts from netaddr.IPAddress in Nova 26's
// environment (netaddr 0.8).
func TestParseHostIP(t *testing.T) {
	cases := []struct{ in, want string }{
		{"10.0.0.1 ", "10.0.0.1"},
		{"10.0.0.1 x", "10.0.0.1"},
		{"0x0a.0.0.1", "10.0.0.1"},
		{"10.1", "10.0.0.1"},
		{"4294967295", "255.255.255.255"},
		{"09.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"0x", ""},
		{"1.2.3.256", ""},
		{"1.2.65535", "1.2.255.255"},
		{"0", "0.0.0.0"},
		{"::1", "::1"},
		{"fe80::1%eth0", ""},
		{"::ffff:1.2.3.4", "::ffff:1.2.3.4"},
		{"2001:DB8:0:0::1", "2001:db8::1"},
		{"010.1.1.1", "8.1.1.1"},
		{"1.2.3", "1.2.0.3"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseHostIP(tc.in)
			if (err != nil) != (tc.want == "") || got != tc.want {
				t.Fatalf("ParseHostIP(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

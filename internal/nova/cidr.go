package nova

import (
	"fmt"
	"math/big"
	"net/netip"
	"strconv"
	"strings"

	"github.com/placer/placer/internal/pyval"
)

// DefaultCIDR is SimpleCIDRAffinityFilter's cidr when the request gives
// none (get_scheduler_hint('cidr', '/24')).
const DefaultCIDR = "/24"

// SimpleCIDRPass is SimpleCIDRAffinityFilter.host_passes (nearIP "" =
// hint absent: pass; cidr is appended to nearIP as given: DefaultCIDR
// when the request has none, "" the address alone). Where Nova raises
// (see SimpleCIDRCheck) the host fails.
func SimpleCIDRPass(hostIP *string, nearIP, cidr string) bool {
	ok, err := SimpleCIDRCheck(hostIP, nearIP, cidr)
	return ok && err == nil
}

// SimpleCIDRCheck is SimpleCIDRPass with Nova's exceptions: netaddr's
// AddrFormatError for a network IPNetwork(nearIP + cidr) refuses or a host
// without a usable host_ip. The network is parsed as netaddr 0.8 does
// (partial IPv4 such as "10.0/16", a netmask or hostmask after the "/");
// an address of the other IP version is never inside.
func SimpleCIDRCheck(hostIP *string, nearIP, cidr string) (bool, error) {
	if nearIP == "" {
		return true, nil
	}
	net, err := parseIPNetwork(nearIP + cidr)
	if err != nil {
		return false, err
	}
	if hostIP == nil {
		return false, pyErr("AddrFormatError", "unexpected type <class 'NoneType'> for addr arg")
	}
	host, err := parseNetaddrIP(*hostIP)
	if err != nil {
		return false, err
	}
	if host.Version != net.ip.Version {
		return false, nil
	}
	width := uint(32)
	if net.ip.Version == 6 {
		width = 128
	}
	shift := width - uint(net.prefix)
	a := new(big.Int).Rsh(host.Value, shift)
	b := new(big.Int).Rsh(net.ip.Value, shift)
	return a.Cmp(b) == 0, nil
}

// ParseHostIP is netaddr.IPAddress(text) as Nova's IPAddressField builds
// HostState.host_ip: the canonical text (str(IPAddress)), or an error
// where Nova refuses the address. IPv4 follows inet_aton (1 to 4 parts,
// octal and hex parts, anything after a whitespace ignored).
func ParseHostIP(text string) (string, error) {
	ip, err := parseNetaddrIP(text)
	if err != nil {
		return "", err
	}
	return ip.Text, nil
}

// ipNetwork is a parsed netaddr.IPNetwork.
type ipNetwork struct {
	ip     *pyval.IPAddress
	prefix int
}

func addrFormatError(format string, a ...any) error {
	return pyErr("AddrFormatError", format, a...)
}

// parseNetaddrIP is netaddr.IPAddress(text) with default flags.
func parseNetaddrIP(text string) (*pyval.IPAddress, error) {
	if v, ok := inetAton(text); ok {
		return ipv4(v), nil
	}
	if a, err := netip.ParseAddr(text); err == nil && a.Is6() && a.Zone() == "" {
		return ipv6(a), nil
	}
	return nil, addrFormatError("failed to detect a valid IP address from %s", pyval.StrRepr(text))
}

func ipv4(v uint32) *pyval.IPAddress {
	return &pyval.IPAddress{
		Version: 4,
		Value:   new(big.Int).SetUint64(uint64(v)),
		Text:    fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&255, v>>8&255, v&255),
	}
}

// ipv6 is an IPv6 address as netaddr holds it; its text is glibc's
// inet_ntop: RFC 5952's, but for an IPv4-mapped address ("::ffff:1.2.3.4")
// and an IPv4-compatible one, the first 96 bits zero and the seventh word
// not ("::1.2.3.4", where Go prints "::102:304").
func ipv6(a netip.Addr) *pyval.IPAddress {
	ip := &pyval.IPAddress{Version: 6, Value: new(big.Int).SetBytes(a.AsSlice()), Text: a.String()}
	b := a.As16()
	switch {
	case a.Is4In6():
		ip.Text = "::ffff:" + a.Unmap().String()
	case b[12]|b[13] != 0 && [12]byte(b[:12]) == [12]byte{}:
		ip.Text = "::" + netip.AddrFrom4([4]byte(b[12:])).String()
	}
	return ip
}

// inetAton is glibc's inet_aton: parts in decimal, octal (leading 0) or hex
// (0x); the last part fills the remaining bytes; parsing stops at the
// first whitespace character.
func inetAton(s string) (uint32, bool) {
	if i := strings.IndexAny(s, " \t\n\v\f\r"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return 0, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		digits := p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return 0, false
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return 0, false
		}
		vals[i] = v
	}
	var out uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return 0, false
		}
		out |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return 0, false
	}
	return uint32(out | last), true
}

// inetPton4 is inet_pton(AF_INET): exactly four decimal parts 0-255
// without leading zeros.
func inetPton4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return 0, false
	}
	var out uint32
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') || strings.Trim(p, "0123456789") != "" {
			return 0, false
		}
		v, _ := strconv.Atoi(p)
		if v > 255 {
			return 0, false
		}
		out = out<<8 | uint32(v)
	}
	return out, true
}

// parseIPNetwork is netaddr.IPNetwork(text): IPv4 first, then IPv6.
func parseIPNetwork(text string) (ipNetwork, error) {
	val1, val2, hasPrefix := strings.Cut(text, "/")
	if n, ok, err := parseNetwork4(val1, val2, hasPrefix); ok || err != nil {
		return n, err
	}
	if a, err := netip.ParseAddr(val1); err == nil && a.Is6() && a.Zone() == "" {
		ip := ipv6(a)
		prefix, ok, err := networkPrefix(val2, hasPrefix, 128, func(m string) (*big.Int, bool) {
			ma, err := netip.ParseAddr(m)
			if err != nil || !ma.Is6() || ma.Zone() != "" {
				return nil, false
			}
			return new(big.Int).SetBytes(ma.AsSlice()), true
		})
		if ok || err != nil {
			return ipNetwork{ip: ip, prefix: prefix}, err
		}
	}
	return ipNetwork{}, addrFormatError("invalid IPNetwork %s", text)
}

func parseNetwork4(val1, val2 string, hasPrefix bool) (ipNetwork, bool, error) {
	v, ok := inetPton4(val1)
	if !ok {
		// expand_partial_address: int() of each part, padded with zeros.
		tokens := strings.Split(val1, ".")
		if strings.Contains(val1, ":") || len(tokens) > 4 {
			return ipNetwork{}, false, nil
		}
		for len(tokens) < 4 {
			tokens = append(tokens, "0")
		}
		var text []string
		for _, t := range tokens {
			n, ok := pyval.BigInt(t)
			if !ok {
				return ipNetwork{}, false, nil
			}
			text = append(text, n.String())
		}
		if v, ok = inetPton4(strings.Join(text, ".")); !ok {
			return ipNetwork{}, false, nil
		}
	}
	prefix, ok, err := networkPrefix(val2, hasPrefix, 32, func(m string) (*big.Int, bool) {
		mv, ok := inetPton4(m)
		return new(big.Int).SetUint64(uint64(mv)), ok
	})
	if !ok {
		return ipNetwork{}, false, err
	}
	return ipNetwork{ip: ipv4(v), prefix: prefix}, true, nil
}

// networkPrefix is the prefix part of parse_ip_network: int(), else a
// netmask or hostmask address; 0..width. A prefix holding a "/" (the text
// had two) raises IPAddress()'s ValueError, which parse_ip_network does
// not catch: IPNetwork raises it rather than try the next version.
func networkPrefix(val2 string, hasPrefix bool, width int, parseMask func(string) (*big.Int, bool)) (int, bool, error) {
	if !hasPrefix {
		return width, true, nil
	}
	if n, ok := pyval.BigInt(val2); ok {
		if !n.IsInt64() || n.Int64() < 0 || n.Int64() > int64(width) {
			return 0, false, nil
		}
		return int(n.Int64()), true, nil
	}
	if strings.Contains(val2, "/") {
		return 0, false, pyErr("ValueError", "IPAddress() does not support netmasks or subnet prefixes! See documentation for details.")
	}
	m, ok := parseMask(val2)
	if !ok {
		return 0, false, nil
	}
	// A netmask is ones then zeros; a hostmask zeros then ones.
	ones := 0
	for i := width - 1; i >= 0 && m.Bit(i) == 1; i-- {
		ones++
	}
	isNetmask := true
	for i := width - 1 - ones; i >= 0; i-- {
		if m.Bit(i) == 1 {
			isNetmask = false
		}
	}
	if isNetmask {
		return ones, true, nil
	}
	low := 0
	for i := 0; i < width && m.Bit(i) == 1; i++ {
		low++
	}
	for i := low; i < width; i++ {
		if m.Bit(i) == 1 {
			return 0, false, nil
		}
	}
	return width - low, true, nil
}

// CIDRNetwork is the network SimpleCIDRAffinityFilter tests hosts
// against. When V4, an IPv4 host address is inside iff it is within
// Lo..Hi; an IPv6 network holds no IPv4 address.
type CIDRNetwork struct {
	V4     bool
	Lo, Hi uint32
}

// ParseCIDRAffinity is the network of SimpleCIDRCheck's nearIP and cidr
// (appended as given), with the error Nova raises (at every host) where
// netaddr refuses it.
func ParseCIDRAffinity(nearIP, cidr string) (CIDRNetwork, error) {
	net, err := parseIPNetwork(nearIP + cidr)
	if err != nil {
		return CIDRNetwork{}, err
	}
	if net.ip.Version != 4 {
		return CIDRNetwork{}, nil
	}
	v := uint32(net.ip.Value.Uint64())
	mask := uint32(0)
	if net.prefix > 0 {
		mask = ^uint32(0) << (32 - net.prefix)
	}
	return CIDRNetwork{V4: true, Lo: v & mask, Hi: v | ^mask}, nil
}

package hostcols

import (
	"encoding/binary"
	"net/netip"

	"github.com/placer/placer/bitmap"
)

// IPs is the hosts' host_ip: a text that is an IPv4 address in dotted
// decimal (four octets 0-255, no leading zeros: the form every compute
// node reports) is kept as its 4 bytes, formatted back when read; any
// other text (IPv6, leading zeros, not an address) is kept in a Texts.
// Distinct per host, the texts cost 26 bytes per host at 100,000
// synthetic hosts.
//
// Invariants: v4 is nil when no host's address is IPv4 text, else ranges
// over every host; where isV4 has host id, its host_ip is formatIPv4(v4[id])
// and other has none for it.
type IPs struct {
	isV4  *bitmap.Set
	v4    []uint32
	other Texts
}

// IPsBuilder builds an IPs over n hosts.
type IPsBuilder struct {
	col   IPs
	n     int
	other *TextsBuilder
}

// NewIPsBuilder returns a builder of the host_ip of n hosts.
func NewIPsBuilder(n int) *IPsBuilder {
	return &IPsBuilder{n: n, other: NewTextsBuilder(n)}
}

// Set gives host id the host_ip *p (nil: none).
func (b *IPsBuilder) Set(id uint32, p *string) {
	if p == nil {
		return
	}
	v, ok := parseIPv4(*p)
	if !ok {
		b.other.Set(id, p)
		return
	}
	if b.col.v4 == nil {
		b.col.isV4, b.col.v4 = bitmap.NewSet(b.n), make([]uint32, b.n)
	}
	b.col.isV4.Add(id)
	b.col.v4[id] = v
}

// SetFrom gives host id from's host j's host_ip, without parsing it
// again (a derived snapshot's hosts keep their own).
func (b *IPsBuilder) SetFrom(id uint32, from *IPs, j uint32) {
	if from.v4 == nil || !from.isV4.Has(j) {
		b.other.Set(id, from.other.Get(j))
		return
	}
	if b.col.v4 == nil {
		b.col.isV4, b.col.v4 = bitmap.NewSet(b.n), make([]uint32, b.n)
	}
	b.col.isV4.Add(id)
	b.col.v4[id] = from.v4[j]
}

// Done returns the column.
func (b *IPsBuilder) Done() IPs {
	b.col.other = b.other.Done()
	return b.col
}

// Get returns host id's host_ip (nil: none), in a new string for an IPv4
// address.
func (c *IPs) Get(id uint32) *string {
	if c.v4 != nil && c.isV4.Has(id) {
		s := formatIPv4(c.v4[id])
		return &s
	}
	return c.other.Get(id)
}

// parseIPv4 returns s's address when s is dotted-decimal IPv4 text that
// formatIPv4 gives back exactly (netip rejects leading zeros and short
// forms, so its IPv4 text is canonical).
func parseIPv4(s string) (uint32, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() || a.String() != s {
		return 0, false
	}
	b := a.As4()
	return binary.BigEndian.Uint32(b[:]), true
}

// formatIPv4 is v in dotted decimal.
func formatIPv4(v uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b).String()
}

package hostcols

// V4 returns host id's host_ip as a 32-bit IPv4 address when it is kept
// as one (plain dotted-decimal text), for indexes over the addresses.
func (c *IPs) V4(id uint32) (uint32, bool) {
	if c.v4 != nil && c.isV4.Has(id) {
		return c.v4[id], true
	}
	return 0, false
}

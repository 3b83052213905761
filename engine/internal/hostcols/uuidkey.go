package hostcols

import (
	"bytes"
	"slices"
	"strings"
)

// uuidKey is a uuid's 16 bytes: what a canonical uuid string (36
// characters, lowercase hex in 8-4-4-4-12 groups) holds in 52 bytes of
// string header and text.
//
// Invariants: formatUUID(parseUUID(s)) == s for every s parseUUID accepts,
// and comparing two keys' bytes orders them as their strings (the hyphens
// sit at the same places, and the hex digits' ASCII order is their
// value's).
type uuidKey [16]byte

// uuidHyphen reports the positions of a canonical uuid's hyphens.
func uuidHyphen(i int) bool { return i == 8 || i == 13 || i == 18 || i == 23 }

// parseUUID returns s's key when s is a canonical uuid; any other text
// (uppercase, braces, no hyphens, not a uuid) is not, since its key could
// not give it back.
func parseUUID(s string) (k uuidKey, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return k, false
	}
	j, bad := 0, byte(0)
	for i := 0; i < 36; i += 2 {
		if uuidHyphen(i) {
			i-- // the next pair starts after the hyphen
			continue
		}
		hi, lo := hexValue[s[i]], hexValue[s[i+1]]
		bad |= hi | lo
		k[j] = hi<<4 | lo&0xf
		j++
	}
	return k, bad&0x80 == 0
}

// hexValue is the value of a lowercase hex digit, 0x80 for any other
// byte.
var hexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0x80
		}
	}
	return t
}()

// appendUUID appends k's canonical text to dst.
func (k *uuidKey) appendUUID(dst []byte) []byte {
	for i, c := range k {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// String is k's canonical text.
func (k *uuidKey) String() string {
	var buf [36]byte
	return string(k.appendUUID(buf[:0]))
}

// compare orders keys as their strings.
func (k *uuidKey) compare(o *uuidKey) int { return bytes.Compare(k[:], o[:]) }

// UUIDs is a column of uuids, kept as keys where canonical: the texts
// that are not (a side table, empty in a Nova cloud) are copies, so the
// column keeps none of its input's strings.
//
// Invariants: entry i's uuid is oddUUID[k] when odd[k] == i (odd
// ascending), else keys[i]'s canonical text; keys[i] is zero for an odd
// entry.
type UUIDs struct {
	keys    []uuidKey
	odd     []int32
	oddUUID []string
}

// NewUUIDs returns a column of n entries, all the zero key (fill it with
// set, in ascending order of entry).
func NewUUIDs(n int) UUIDs { return UUIDs{keys: make([]uuidKey, n)} }

// Set makes entry i's uuid u. Entries are set in ascending order.
func (c *UUIDs) Set(i int32, u string) {
	if k, ok := parseUUID(u); ok {
		c.keys[i] = k
		return
	}
	c.odd = append(c.odd, i)
	c.oddUUID = append(c.oddUUID, strings.Clone(u))
}

// SetFrom makes entry i's uuid from's entry j (entries set in ascending
// order, as Set): a derived snapshot's hosts keep their parsed uuids.
func (c *UUIDs) SetFrom(i int32, from *UUIDs, j int32) {
	if k, ok := from.oddAt(j); ok {
		c.odd = append(c.odd, i)
		c.oddUUID = append(c.oddUUID, from.oddUUID[k])
		return
	}
	c.keys[i] = from.keys[j]
}

// oddAt returns the index into odd of entry i, if i's uuid is odd.
func (c *UUIDs) oddAt(i int32) (int, bool) {
	if len(c.odd) == 0 {
		return 0, false
	}
	return slices.BinarySearch(c.odd, i)
}

func (c *UUIDs) isOdd(i int32) bool {
	_, ok := c.oddAt(i)
	return ok
}

// Get returns entry i's uuid, as its input spelt it.
func (c *UUIDs) Get(i int32) string {
	if k, ok := c.oddAt(i); ok {
		return c.oddUUID[k]
	}
	return c.keys[i].String()
}

// Kept reports whether the column holds entries (a zero UUIDs holds none).
func (c *UUIDs) Kept() bool { return c.keys != nil }

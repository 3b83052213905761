package nova

import (
	"crypto/sha1"
	"fmt"
	"strings"
)

// MadeUpUUID is the conformance oracle's made_up_uuid: a uuid5 over the
// NUL-joined parts in the oracle's namespace. It is how the uuids a
// scenario leaves out are made (hosts: MadeUpUUID("host", host, node);
// cells: MadeUpUUID("cell", cell); the group: MadeUpUUID("group")), so that
// results compare with the oracle's Nova objects.
func MadeUpUUID(parts ...string) string {
	ns := [16]byte{0x6f, 0x1c, 0x1a, 0x4e, 0x5b, 0x0e, 0x4c, 0x4e, 0x9d, 0x43, 0x0c, 0x2f, 0x7b, 0x1f, 0x3a, 0x90}
	h := sha1.New()
	h.Write(ns[:])
	h.Write([]byte(strings.Join(parts, "\x00")))
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

package engine

import (
	"encoding/binary"
	"maps"
	"slices"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"
)

// The keys NewSnapshot interns per-host values by: hosts with equal stats
// share one map, hosts with equal hypervisor signatures one list. Keys
// are built into reused buffers, length-prefixed (unambiguous), and
// looked up without a copy; only a value not seen before is stored.

// statsInterner gives hosts with equal stats one map (read-only, shared),
// by index: at 100,000 synthetic hosts there are ~1,600 distinct ones, and
// a map per host cost ~320 bytes.
type statsInterner struct {
	byKey map[string]int32 // -> index into maps
	maps  []map[string]string
	keys  []string
	buf   []byte
}

// of returns the index of the stats of h as HostState.stats holds them:
// the reported ones and the counters Nova adds. The key is built without
// a map; the map only for stats not seen before.
func (in *statsInterner) of(h *Host) int32 {
	counters := [...]struct {
		key string
		val int64
	}{{"failed_builds", h.FailedBuilds}, {"io_workload", h.NumIOOps}, {"num_instances", h.NumInstances}}
	counter := func(k string) int {
		for c := range counters {
			if counters[c].key == k {
				return c
			}
		}
		return -1
	}
	in.keys = in.keys[:0]
	for k := range h.Stats {
		if counter(k) < 0 {
			in.keys = append(in.keys, k)
		}
	}
	for _, c := range counters {
		in.keys = append(in.keys, c.key)
	}
	slices.Sort(in.keys)
	in.buf = in.buf[:0] // each key and value length-prefixed
	for _, k := range in.keys {
		in.buf = appendField(in.buf, k)
		if c := counter(k); c >= 0 {
			var num [20]byte
			v := strconv.AppendInt(num[:0], counters[c].val, 10)
			in.buf = binary.AppendUvarint(in.buf, uint64(len(v)))
			in.buf = append(in.buf, v...)
		} else {
			in.buf = appendField(in.buf, h.Stats[k])
		}
	}
	if k, ok := in.byKey[string(in.buf)]; ok {
		return k
	}
	st := make(map[string]string, len(h.Stats)+len(counters))
	maps.Copy(st, h.Stats)
	for _, c := range counters {
		st[c.key] = strconv.FormatInt(c.val, 10)
	}
	return in.add(st)
}

// share returns the index of stats st, a map an earlier snapshot
// interned (a derived snapshot's, derive.go): the same key as of builds
// for the host it came from, and st itself shared, not copied.
func (in *statsInterner) share(st map[string]string) int32 {
	in.keys = in.keys[:0]
	for k := range st {
		in.keys = append(in.keys, k)
	}
	slices.Sort(in.keys)
	in.buf = in.buf[:0]
	for _, k := range in.keys {
		in.buf = appendField(appendField(in.buf, k), st[k])
	}
	if k, ok := in.byKey[string(in.buf)]; ok {
		return k
	}
	return in.add(st)
}

// add interns st under the key in buf.
func (in *statsInterner) add(st map[string]string) int32 {
	k := int32(len(in.maps))
	in.byKey[string(in.buf)] = k
	in.maps = append(in.maps, st)
	return k
}

// appendField appends s, length-prefixed.
func appendField(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// sigInterner gives hosts with equal hypervisor signatures (canonical
// supported_instances and hypervisor version) one index into the
// hostInfo's signature tables.
type sigInterner struct {
	ids map[string]int32 // key (sigKey) -> index
	buf []byte
}

// of returns the index of the signature of host id (supported, version),
// adding it to info's tables, with id as its representative, when it is
// new; own says supported is already a snapshot's own (else it is copied).
func (in *sigInterner) of(info *hostInfo, id uint32, supported [][3]string, version *int64, own bool) int32 {
	in.buf = sigKey(in.buf[:0], supported, version)
	if sig, ok := in.ids[string(in.buf)]; ok {
		return sig
	}
	sig := int32(len(info.hvSigHost))
	in.ids[string(in.buf)] = sig
	// One signature, one list: its hosts share it.
	info.hvSigHost = append(info.hvSigHost, roaring.New())
	info.hvSigRep = append(info.hvSigRep, id)
	if !own {
		supported = cloneSpecs(supported)
	}
	info.sigSupported = append(info.sigSupported, supported)
	return sig
}

// sigKey appends to dst a key of a host's hypervisor signature: its
// canonical supported instances and its hypervisor version (or none),
// the count and each string length-prefixed.
func sigKey(dst []byte, supported [][3]string, version *int64) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(supported)))
	for _, spec := range supported {
		for _, f := range spec {
			dst = appendField(dst, f)
		}
	}
	if version == nil {
		return append(dst, 0)
	}
	return binary.AppendVarint(append(dst, 1), *version)
}

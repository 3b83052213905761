// Package hostcols holds the column types of a snapshot's static per-host
// data: compact, read-only encodings of what every host reports, each
// built once with a builder and read by host id (or host name id).
//
// Every type trades a few operations per read for memory: a cloud of
// 100,000 hosts keeps per host a byte or two per categorical attribute
// where a slice of ints or strings cost 4 to 52.
//
// Files, one column type each: smallcol.go (Idx, an index or offset per
// host in 1 to 8 bytes; Ints, int64 values as offsets from the smallest),
// packedints.go (non-negative ints at the width of the largest),
// uuidkey.go (UUIDs: uuids kept as their 16 bytes), hostnames.go (Names:
// host and node names in one string), instances.go (Instances, the
// instance uuids per host name and the host names per uuid; NameIndex,
// host ids by name), hostip.go (IPs: host_ip as 4 bytes), hvattrs.go
// (HVModels and Texts: hypervisor attributes by index into their
// distinct values) and hostmetrics.go (Metrics: a column per metric).
//
// The package imports nothing from engine: engine's hostInfo holds these
// columns and answers for a host through them.
package hostcols

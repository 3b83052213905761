package engine

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// The checks of a Store's changes (hosts added, an aggregate changed, a
// usage report) before they are applied: exported so that a store of the
// same cloud elsewhere (engine/etcdstore) refuses what this one would,
// before it writes anything.

// ValidateAddHosts checks hosts as adding them to cloud c (a valid cloud,
// a store's) would be checked: each host's fields, and against one
// another and c's hosts (duplicate nodes or uuids, one service per host).
// The *ValidationError names a bad field by its index in hosts
// (hosts[1].memory_mb), a host of c as "the cloud's hosts[j]". It does
// not change c or hosts.
func ValidateAddHosts(c *Cloud, hosts []Host) error {
	n := len(c.Hosts)
	all := Cloud{Config: c.Config, Hosts: append(c.Hosts[:n:n], hosts...)}
	return namedAsJoining(validateCloud(&all, n), n)
}

// namedAsJoining renames the host indexes of an error about a cloud whose
// first n hosts were there before: a joining host by its index among
// those joining, one of the n as "the cloud's hosts[j]".
func namedAsJoining(err error, n int) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	// Indexes into all: the joining hosts' shift back by n, c's are named.
	rename := func(s string) string {
		return hostIndex.ReplaceAllStringFunc(s, func(m string) string {
			i, _ := strconv.Atoi(m[len("hosts[") : len(m)-1])
			if i < n {
				return "the cloud's " + m
			}
			return "hosts[" + strconv.Itoa(i-n) + "]"
		})
	}
	return &ValidationError{Field: rename(ve.Field), Msg: rename(ve.Msg), notImplemented: ve.notImplemented}
}

// hostIndex matches a host's index in a field path or message.
var hostIndex = regexp.MustCompile(`hosts\[[0-9]+\]`)

// ValidateUsage checks a usage report: the counts a report carries
// (vcpus_used, num_instances, num_io_ops) cannot be negative; free RAM
// and disk can (an overcommitted host); none is past MaxMB. The
// *ValidationError names the field (usage.vcpus_used) and its value.
func ValidateUsage(u HostUsage) error {
	for _, c := range []struct {
		field string
		v     int64
		count bool
	}{{"free_ram_mb", u.FreeRAMMB, false}, {"free_disk_mb", u.FreeDiskMB, false}, {"vcpus_used", u.VCPUsUsed, true},
		{"num_instances", u.NumInstances, true}, {"num_io_ops", u.NumIOOps, true}} {
		switch {
		case c.count && c.v < 0:
			return invalid("usage."+c.field, "want a number >= 0, got %d", c.v)
		case c.v < -MaxMB || c.v > MaxMB:
			return bounded("usage.", c.field, c.v, MaxMB)
		}
	}
	return nil
}

// ValidateAggregate checks aggregate a as ValidateCloud checks each of a
// cloud's aggregates, naming a bad field under "aggregate"
// (aggregate.name, aggregate.metadata.ram_weight_multiplier).
func ValidateAggregate(a Aggregate) error {
	if a.Name == "" {
		return invalid("aggregate.name", "want a non-empty string")
	}
	return validateAggregateNumbers("aggregate", a.Metadata)
}

// ValidateAggregateChanges checks the aggregates changes leave, applied
// to c's in order (Cloud.WithAggregates), as ValidateAggregate checks
// each: only the end state counts. A bad field is named by the index of
// the last change to its aggregate (changes[1].metadata.cpu_allocation_ratio,
// changes[0].name).
func ValidateAggregateChanges(c *Cloud, changes []AggregateChange) error {
	last := make(map[string]int, len(changes)) // aggregate -> its last change
	for i, ch := range changes {
		last[ch.Name] = i
	}
	after := c.WithAggregates(changes)
	for _, a := range after.Aggregates {
		i, changed := last[a.Name]
		if !changed {
			continue // c's own, valid
		}
		if err := ValidateAggregate(a); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return &ValidationError{Field: "changes[" + strconv.Itoa(i) + "]" + strings.TrimPrefix(ve.Field, "aggregate"), Msg: ve.Msg}
			}
			return err
		}
	}
	return nil
}

package scenario

import (
	"io"
	"slices"

	"github.com/placer/placer/engine"
)

// RequestDoc is a placement request read on its own (DecodeRequestDoc),
// with what a service needs to know beyond the engine.Request.
type RequestDoc struct {
	// Request is complete, as Scenario.Request is after Decode.
	Request engine.Request
	// UUIDsGiven is true when the document listed instance_uuids (else
	// Request holds the defaults inst-0, inst-1...).
	UUIDsGiven bool
	// Flags are the extra boolean fields the caller allowed, true or false
	// as given (absent ones are false).
	Flags map[string]bool
}

// DecodeRequest reads one request object, the "request" of a scenario,
// with the same strict rules, defaults and messages as Decode; field paths
// start with "request" (request.flavor.vcpus). Every error is a
// *engine.ValidationError.
func DecodeRequest(r io.Reader) (engine.Request, error) {
	doc, err := DecodeRequestDoc(r)
	return doc.Request, err
}

// DecodeRequestDoc is DecodeRequest that also accepts, at the top level
// of the object, the boolean fields named in flags (a service's "partial",
// say), and says whether instance_uuids was given.
func DecodeRequestDoc(r io.Reader, flags ...string) (RequestDoc, error) {
	return DecodeRequestDocMax(r, 0, flags...)
}

// DecodeRequestDocMax is DecodeRequestDoc with num_instances bounded by
// maxInstances too (when positive): a service's limit, checked before
// the default uuids of so many instances are made.
func DecodeRequestDocMax(r io.Reader, maxInstances int, flags ...string) (RequestDoc, error) {
	data, err := readAll(r)
	if err != nil {
		return RequestDoc{}, &engine.ValidationError{Msg: "cannot read the request: " + err.Error()}
	}
	root, err := parseJSON(data)
	if err != nil {
		return RequestDoc{}, err
	}
	const path = "request"
	d := &decoder{maxInstances: maxInstances}
	out := RequestDoc{Flags: map[string]bool{}}
	if root.kind == kObject && len(flags) > 0 {
		// Take the flags out, so that the record reader sees the request
		// fields only.
		keep := &node{kind: kObject}
		for i, k := range root.keys {
			if slices.Contains(flags, k) {
				out.Flags[k] = d.boolean(fieldPath(path, k), root.items[i])
				continue
			}
			keep.keys = append(keep.keys, k)
			keep.items = append(keep.items, root.items[i])
		}
		root = keep
	}
	doc := requestDoc{}
	doc.r.NumInstances = 1
	record(d, path, root, requestFields, &doc)
	out.Request = d.request(&doc)
	out.UUIDsGiven = doc.uuidsGiven
	if d.err != nil {
		return RequestDoc{}, d.err
	}
	return out, nil
}

// DecodeHost reads one host object, an element of a scenario's "hosts",
// with the same rules and defaults as Decode (node = host, cell1, a
// made-up uuid); field paths start with "host" (host.free_ram_mb). Every
// error is a *engine.ValidationError.
func DecodeHost(r io.Reader) (engine.Host, error) {
	var h engine.Host
	d, err := decodeRecord(r, "host", hostFields, &h)
	if err != nil {
		return engine.Host{}, err
	}
	hosts := []engine.Host{h}
	d.hosts(hosts)
	if d.err != nil {
		return engine.Host{}, d.err
	}
	return hosts[0], nil
}

// usageFields is a usage report's fields (DecodeUsage): the host fields
// that a compute node's report replaces, in the host record's order.
var usageFields = []field[engine.HostUsage]{
	{"free_ram_mb", true, func(d *decoder, p string, v *node, u *engine.HostUsage) { u.FreeRAMMB = d.integer(p, v, 0, false) }},
	{"free_disk_gb", true, func(d *decoder, p string, v *node, u *engine.HostUsage) {
		gb := d.integer(p, v, 0, false)
		if d.err == nil && (gb < -engine.MaxGB || gb > engine.MaxGB) { // before it is made MB
			d.fail(p, "want an integer from -%d to %d, got %d", engine.MaxGB, engine.MaxGB, gb)
		}
		u.FreeDiskMB = gb * 1024
	}},
	{"vcpus_used", true, func(d *decoder, p string, v *node, u *engine.HostUsage) { u.VCPUsUsed = d.nonnegInteger(p, v) }},
	{"num_instances", false, func(d *decoder, p string, v *node, u *engine.HostUsage) { u.NumInstances = d.nonnegInteger(p, v) }},
	{"num_io_ops", false, func(d *decoder, p string, v *node, u *engine.HostUsage) { u.NumIOOps = d.nonnegInteger(p, v) }},
}

// DecodeUsage reads one usage report, the body of a compute node's report
// to the service: an object of free_ram_mb, free_disk_gb and vcpus_used
// (required) and num_instances and num_io_ops (default 0), all integers,
// the counts >= 0, read with the scenario's strict rules (duplicate keys,
// null for a number and anything after the object are errors) and
// checked against the engine's bounds (engine.ValidateUsage). Field paths
// start with "usage" (usage.vcpus_used). Every error is a
// *engine.ValidationError.
func DecodeUsage(r io.Reader) (engine.HostUsage, error) {
	var u engine.HostUsage
	if _, err := decodeRecord(r, "usage", usageFields, &u); err != nil {
		return engine.HostUsage{}, err
	}
	if err := engine.ValidateUsage(u); err != nil {
		return engine.HostUsage{}, err
	}
	return u, nil
}

// decodeRecord reads one JSON object of fields into dst with the
// scenario's strict rules, its field paths under path ("host",
// "usage"); the decoder is returned for the caller's further checks.
func decodeRecord[T any](r io.Reader, path string, fields []field[T], dst *T) (*decoder, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, &engine.ValidationError{Msg: "cannot read the " + path + ": " + err.Error()}
	}
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	record(d, path, root, fields, dst)
	if d.err != nil {
		return nil, d.err
	}
	return d, nil
}

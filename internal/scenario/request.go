package scenario

import (
	"slices"
	"strings"

	"github.com/placer/placer/engine"
)

// requestDoc is a request being read: the engine's Request plus what the
// checks after the record need to know.
type requestDoc struct {
	r          engine.Request
	uuidsGiven bool
	group      *groupDoc
}

// groupDoc is an instance group being read.
type groupDoc struct {
	g         engine.InstanceGroup
	uuidGiven bool
}

var flavorFields = []field[engine.Flavor]{
	{"name", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.Name = d.string(p, v) }},
	{"memory_mb", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.MemoryMB = d.nonnegInteger(p, v) }},
	{"vcpus", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.VCPUs = d.nonnegInteger(p, v) }},
	{"root_gb", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.RootGB = d.nonnegInteger(p, v) }},
	{"ephemeral_gb", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.EphemeralGB = d.nonnegInteger(p, v) }},
	{"swap", false, func(d *decoder, p string, v *node, f *engine.Flavor) { f.Swap = d.nonnegInteger(p, v) }},
	{"extra_specs", false, func(d *decoder, p string, v *node, f *engine.Flavor) {
		f.ExtraSpecs = d.stringMap(p, v)
		if f.ExtraSpecs != nil && !slices.IsSorted(v.keys) {
			// Nova walks them in the flavor's order (nil: sorted).
			f.ExtraSpecOrder = slices.Clone(v.keys)
		}
	}},
}

var imageFields = []field[engine.Image]{
	{"id", false, func(d *decoder, p string, v *node, im *engine.Image) { im.ID = d.nullableString(p, v, false) }},
	{"properties", false, func(d *decoder, p string, v *node, im *engine.Image) {
		d.mapOf(p, v, func(p, k string, x *node) {
			val := d.imageProperty(p, x)
			if im.Properties == nil {
				im.Properties = make(map[string]any, len(v.keys))
			}
			im.Properties[k] = val
		})
	}},
}

// imageProperty reads a Glance property value: a string, number, boolean
// or null, as JSON types it (int64 for integers, float64 for floats).
func (d *decoder) imageProperty(p string, v *node) any {
	switch v.kind {
	case kNull:
		return nil
	case kBool:
		return v.b
	case kString:
		return v.s
	case kInt:
		return v.i
	case kFloat:
		return v.f
	case kBigInt:
		d.fail(p, "want an integer that fits in 64 bits, got %s", v.s)
		return nil
	}
	d.fail(p, "want a string, number or boolean, got %s", show(v))
	return nil
}

var rulesFields = []field[engine.InstanceGroup]{
	{"max_server_per_host", false, func(d *decoder, p string, v *node, g *engine.InstanceGroup) {
		g.MaxServerPerHost = d.positiveInt(p, v)
	}},
}

var groupFields = []field[groupDoc]{
	{"uuid", false, func(d *decoder, p string, v *node, g *groupDoc) {
		if s := d.nullableString(p, v, true); s != nil {
			g.g.UUID, g.uuidGiven = *s, true
		}
	}},
	{"policy", true, func(d *decoder, p string, v *node, g *groupDoc) { g.g.Policy = d.string(p, v) }},
	{"rules", false, func(d *decoder, p string, v *node, g *groupDoc) { record(d, p, v, rulesFields, &g.g) }},
	{"hosts", false, func(d *decoder, p string, v *node, g *groupDoc) { g.g.Hosts = d.stringList(p, v, false) }},
	{"members", false, func(d *decoder, p string, v *node, g *groupDoc) { g.g.Members = d.stringList(p, v, false) }},
}

var destinationFields = []field[engine.Destination]{
	{"host", true, func(d *decoder, p string, v *node, dst *engine.Destination) { dst.Host = d.nonemptyString(p, v) }},
	{"node", false, func(d *decoder, p string, v *node, dst *engine.Destination) {
		if s := d.nullableString(p, v, true); s != nil {
			dst.Node = *s
		}
	}},
}

var retryFields = []field[engine.Retry]{
	{"num_attempts", false, func(d *decoder, p string, v *node, r *engine.Retry) {
		r.NumAttempts = int(d.integer(p, v, 0, true))
	}},
	{"hosts", false, func(d *decoder, p string, v *node, r *engine.Retry) {
		d.list(p, v, func(p string, x *node) {
			if x.kind != kList || len(x.items) != 2 {
				d.fail(p, "want [host, node], got %s", show(x))
				return
			}
			r.Hosts = append(r.Hosts, engine.HostNode{
				Host: d.string(p+"[0]", x.items[0]),
				Node: d.string(p+"[1]", x.items[1]),
			})
		})
	}},
}

// nullableList is nullable(string_list): null and [] are both nil.
func (d *decoder) nullableList(p string, v *node) []string {
	if v.kind == kNull {
		return nil
	}
	return d.stringList(p, v, false)
}

// MaxInstances bounds a request's num_instances, so that a typo cannot
// make the reader build millions of instance uuids: the engine's bound.
const MaxInstances = engine.MaxInstances

var requestFields = []field[requestDoc]{
	{"num_instances", false, func(d *decoder, p string, v *node, r *requestDoc) {
		n := d.positiveInt(p, v)
		limit := MaxInstances
		if d.maxInstances > 0 {
			limit = min(limit, d.maxInstances)
		}
		if n > limit {
			// The oracle has no bound and would build the list of uuids;
			// no cloud places millions of instances in one request.
			d.fail(p, "want an integer <= %d, got %d", limit, n)
		}
		r.r.NumInstances = n
	}},
	{"instance_uuids", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			r.r.InstanceUUIDs = d.stringList(p, v, true)
			r.uuidsGiven = true
		}
	}},
	{"flavor", true, func(d *decoder, p string, v *node, r *requestDoc) {
		record(d, p, v, flavorFields, &r.r.Flavor)
	}},
	{"image", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			record(d, p, v, imageFields, &r.r.Image)
		}
	}},
	{"project_id", false, func(d *decoder, p string, v *node, r *requestDoc) { r.r.ProjectID = d.nullableString(p, v, false) }},
	{"user_id", false, func(d *decoder, p string, v *node, r *requestDoc) { r.r.UserID = d.nullableString(p, v, false) }},
	{"availability_zone", false, func(d *decoder, p string, v *node, r *requestDoc) {
		r.r.AvailabilityZone = d.nullableString(p, v, false)
	}},
	{"instance_group", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			r.group = &groupDoc{}
			record(d, p, v, groupFields, r.group)
		}
	}},
	{"ignore_hosts", false, func(d *decoder, p string, v *node, r *requestDoc) { r.r.IgnoreHosts = d.nullableList(p, v) }},
	{"force_hosts", false, func(d *decoder, p string, v *node, r *requestDoc) { r.r.ForceHosts = d.nullableList(p, v) }},
	{"force_nodes", false, func(d *decoder, p string, v *node, r *requestDoc) { r.r.ForceNodes = d.nullableList(p, v) }},
	{"requested_destination", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			r.r.RequestedDestination = &engine.Destination{}
			record(d, p, v, destinationFields, r.r.RequestedDestination)
		}
	}},
	{"scheduler_hints", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			r.r.SchedulerHints = d.hints(p, v)
		}
	}},
	{"retry", false, func(d *decoder, p string, v *node, r *requestDoc) {
		if v.kind != kNull {
			r.r.Retry = &engine.Retry{NumAttempts: 1}
			record(d, p, v, retryFields, r.r.Retry)
		}
	}},
}

// schedulerHints are the hints of the contract, in the oracle's order.
var schedulerHints = []string{"same_host", "different_host", "query", "build_near_host_ip", "cidr"}

// hints reads scheduler_hints: each value a string or a list of strings (a
// string is a one-element list, as Nova's RequestSpec wraps it); only the
// contract's hints; query, build_near_host_ip and cidr hold one string.
func (d *decoder) hints(p string, v *node) engine.Hints {
	values := map[string][]string{}
	d.mapOf(p, v, func(p, k string, x *node) {
		if x.kind == kString {
			values[k] = []string{x.s}
		} else {
			values[k] = d.stringList(p, x, false)
		}
	})
	for _, k := range v.keys {
		if d.err == nil && !slices.Contains(schedulerHints, k) {
			d.fail(keyPath(p, k), "unknown scheduler hint (known: %s)", strings.Join(schedulerHints, ", "))
		}
	}
	var h engine.Hints
	one := func(k string) string {
		vs, ok := values[k]
		if !ok {
			return ""
		}
		if len(vs) != 1 {
			// A string was wrapped into one element: only a list can
			// have another length.
			d.fail(keyPath(p, k), "want one string")
			return ""
		}
		return vs[0]
	}
	h.SameHost = values["same_host"]
	h.DifferentHost = values["different_host"]
	h.Query = one("query")
	h.BuildNearHostIP = one("build_near_host_ip")
	h.CIDR = one("cidr")
	if _, given := values["cidr"]; given && h.CIDR == "" {
		h.EmptyCIDR = true // appended as given: the address alone
	}
	return h
}

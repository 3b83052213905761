package scenario

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// Scenario is a decoded scenario file (docs/formats.md): the cloud
// with its configuration, and one placement request.
//
// A Scenario returned by Decode is complete: every default of the format (docs/formats.md)
// is filled in (Config starts from engine.DefaultConfig(); each host has its
// Node, UUID and Cell; the request has NumInstances and one uuid per
// instance; a group has its UUID), and empty lists and maps are nil.
type Scenario struct {
	Cloud   engine.Cloud
	Request engine.Request
}

// Decode reads a scenario document strictly, with the rules, defaults and
// messages of the oracle's parser (nova-oracle/novaoracle/scenario.py):
// malformed JSON, duplicate keys, NaN/Infinity, unknown fields, wrong types,
// missing required fields, duplicate hosts or aggregate names, two service
// states for one host, a wrong number of instance uuids, an unknown group
// policy or scheduler hint are errors. Every error is a
// *engine.ValidationError whose Error() is one line, "path: what is wrong".
//
// Host resource numbers may be fractional and are truncated toward zero, as
// Nova stores them. What only Nova refuses (an unknown architecture or
// metric name, an image property Nova cannot type) is left to the engine's
// own validation.
func Decode(r io.Reader) (*Scenario, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, &engine.ValidationError{Msg: "cannot read the scenario: " + err.Error()}
	}
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return decodeNode(root)
}

// readAll is io.ReadAll with the buffer sized up front when r knows its
// length (a file, a bytes or strings reader), so that a large cloud is not
// copied through ever larger buffers.
func readAll(r io.Reader) ([]byte, error) {
	size := 0
	switch x := r.(type) {
	case interface{ Len() int }:
		size = x.Len()
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := x.Stat(); err == nil && fi.Mode().IsRegular() {
			size = int(fi.Size())
		}
	}
	if size == 0 {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// scenarioDoc is a scenario being read.
type scenarioDoc struct {
	format  int64
	s       Scenario
	request requestDoc
}

var scenarioFields = []field[scenarioDoc]{
	{"format", false, func(d *decoder, p string, v *node, s *scenarioDoc) { s.format = d.integer(p, v, 0, false) }},
	{"config", false, func(d *decoder, p string, v *node, s *scenarioDoc) {
		record(d, p, v, configFields, &s.s.Cloud.Config)
	}},
	{"aggregates", false, func(d *decoder, p string, v *node, s *scenarioDoc) {
		d.list(p, v, func(p string, x *node) {
			var a engine.Aggregate
			record(d, p, x, aggregateFields, &a)
			s.s.Cloud.Aggregates = append(s.s.Cloud.Aggregates, a)
		})
	}},
	{"hosts", false, func(d *decoder, p string, v *node, s *scenarioDoc) {
		if v.kind == kList {
			s.s.Cloud.Hosts = make([]engine.Host, 0, len(v.items))
		}
		d.list(p, v, func(p string, x *node) {
			var h engine.Host
			record(d, p, x, hostFields, &h)
			s.s.Cloud.Hosts = append(s.s.Cloud.Hosts, h)
		})
	}},
	{"request", true, func(d *decoder, p string, v *node, s *scenarioDoc) {
		s.request.r.NumInstances = 1
		record(d, p, v, requestFields, &s.request)
	}},
}

func decodeNode(root *node) (*Scenario, error) {
	d := &decoder{}
	doc := &scenarioDoc{format: 1}
	doc.s.Cloud.Config = engine.DefaultConfig()
	record(d, "", root, scenarioFields, doc)
	if d.err != nil {
		return nil, d.err
	}
	if doc.format != 1 {
		d.fail("format", "want 1, got %d", doc.format)
	}
	d.aggregates(doc.s.Cloud.Aggregates)
	d.hosts(doc.s.Cloud.Hosts)
	doc.s.Request = d.request(&doc.request)
	if d.err != nil {
		return nil, d.err
	}
	if len(doc.s.Cloud.Hosts) == 0 {
		doc.s.Cloud.Hosts = nil
	}
	return &doc.s, nil
}

// aggregates names the unnamed aggregates agg<i> and refuses duplicate
// names (Nova's API does).
func (d *decoder) aggregates(aggs []engine.Aggregate) {
	if d.err != nil {
		return
	}
	names := make(map[string]bool, len(aggs))
	for i := range aggs {
		a := &aggs[i]
		if a.Name == "" {
			a.Name = "agg" + strconv.Itoa(i)
		}
		if names[a.Name] {
			d.fail(fmt.Sprintf("aggregates[%d].name", i), "duplicate aggregate name %s", pyQuote(a.Name))
			return
		}
		names[a.Name] = true
	}
}

// hosts fills node (= host), uuid (made up as the oracle makes it) and cell
// (cell1), and refuses a repeated (host, node), a repeated uuid and two
// service states for one host name.
func (d *decoder) hosts(hosts []engine.Host) {
	if d.err != nil {
		return
	}
	type key struct{ host, node string }
	seen := make(map[key]int, len(hosts))
	uuids := make(map[string]bool, len(hosts))
	serviceOf := make(map[string]int, len(hosts))
	for i := range hosts {
		h := &hosts[i]
		p := fmt.Sprintf("hosts[%d]", i)
		if h.Node == "" {
			h.Node = h.Host
		}
		if h.Cell == "" {
			h.Cell = "cell1"
		}
		k := key{h.Host, h.Node}
		if j, dup := seen[k]; dup {
			d.fail(p, "duplicate host %s node %s (also hosts[%d])", pyQuote(h.Host), pyQuote(h.Node), j)
			return
		}
		seen[k] = i
		if h.UUID == "" {
			h.UUID = MadeUpUUID("host", h.Host, h.Node)
		}
		if uuids[h.UUID] {
			d.fail(p+".uuid", "duplicate uuid %s", pyQuote(h.UUID))
			return
		}
		uuids[h.UUID] = true
		if j, ok := serviceOf[h.Host]; ok {
			if hosts[j].Service != h.Service {
				d.fail(p+".service", "differs from hosts[%d].service of the same host; Nova has one compute service per host", j)
				return
			}
		} else {
			serviceOf[h.Host] = i
		}
	}
}

// groupPolicies are the server group policies a scenario may name.
var groupPolicies = []string{engine.PolicyAffinity, engine.PolicyAntiAffinity, engine.PolicySoftAffinity, engine.PolicySoftAntiAffinity}

// request fills the instance uuids (inst-0, inst-1...) and the group's uuid
// and checks the uuid count, their uniqueness and the group policy.
func (d *decoder) request(doc *requestDoc) engine.Request {
	if d.err != nil {
		return engine.Request{}
	}
	r := doc.r
	n := r.NumInstances
	switch {
	case !doc.uuidsGiven:
		r.InstanceUUIDs = make([]string, n)
		for i := range r.InstanceUUIDs {
			r.InstanceUUIDs[i] = "inst-" + strconv.Itoa(i)
		}
	case len(r.InstanceUUIDs) != n:
		d.fail("request.instance_uuids", "want %d uuids (one per instance), got %d", n, len(r.InstanceUUIDs))
		return r
	default:
		seen := make(map[string]bool, n)
		for _, u := range r.InstanceUUIDs {
			if seen[u] {
				d.fail("request.instance_uuids", "uuids are not unique")
				return r
			}
			seen[u] = true
		}
	}
	if g := doc.group; g != nil {
		if !slices.Contains(groupPolicies, g.g.Policy) {
			d.fail("request.instance_group.policy", "want one of %s, got %s",
				strings.Join(groupPolicies, ", "), pyQuote(g.g.Policy))
			return r
		}
		if !g.uuidGiven {
			g.g.UUID = MadeUpUUID("group")
		}
		r.InstanceGroup = &g.g
	}
	return r
}

// MadeUpUUID is the oracle's made_up_uuid: a uuid5 over the NUL-joined
// parts in the oracle's namespace. Host uuids (MadeUpUUID("host", host,
// node)) and the group uuid (MadeUpUUID("group")) a scenario leaves out are
// made this way, so results compare with the oracle's.
func MadeUpUUID(parts ...string) string { return nova.MadeUpUUID(parts...) }

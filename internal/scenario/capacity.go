package scenario

import (
	"encoding/json"
	"fmt"

	"github.com/placer/placer/engine"
)

// CapacityDoc is an engine.CapacityReport as `placer capacity` prints it
// and POST /v1/capacity answers it (docs/explain.md).
type CapacityDoc struct {
	Fit        int            `json:"fit"`
	Max        int            `json:"max"`
	Full       bool           `json:"full"`
	PerHost    []HostCountDoc `json:"per_host"`
	Placements []LandingDoc   `json:"placements"`
	// Stop is why the next instance found no host (when Full).
	Stop *StopDoc `json:"stop,omitempty"`
}

// HostCountDoc is how many instances landed on one host.
type HostCountDoc struct {
	Host  string `json:"host"`
	Node  string `json:"node"`
	Count int    `json:"count"`
}

// LandingDoc is where one instance landed.
type LandingDoc struct {
	Host       string  `json:"host"`
	Node       string  `json:"node"`
	Weight     float64 `json:"weight"`
	Candidates int     `json:"candidates"`
}

// StopDoc is the NoValidHost of the instance that did not fit.
type StopDoc struct {
	Prefiltered int              `json:"prefiltered"`
	Filters     []FilterCountDoc `json:"filters"`
	Message     string           `json:"message"`
}

// CapacityOf is the document of r.
func CapacityOf(r *engine.CapacityReport) CapacityDoc {
	d := CapacityDoc{Fit: r.Fit, Max: r.Max, Full: r.Full, PerHost: []HostCountDoc{}, Placements: []LandingDoc{}}
	for _, h := range r.PerHost {
		d.PerHost = append(d.PerHost, HostCountDoc{h.Host, h.Node, h.Count})
	}
	for _, p := range r.Placements {
		d.Placements = append(d.Placements, LandingDoc{p.Host, p.Node, p.Weight, p.Candidates})
	}
	if s := r.Stop; s != nil {
		d.Stop = &StopDoc{Prefiltered: s.Prefiltered, Filters: []FilterCountDoc{}, Message: s.Error()}
		for _, f := range s.Filters {
			d.Stop.Filters = append(d.Stop.Filters, FilterCountDoc{f.Name, f.Start, f.End})
		}
	}
	return d
}

// AggregateChangeDoc is one aggregate change of a capacity question:
// {"name": "rack12", "set": {"ram_allocation_ratio": "1.0"}, "delete": ["k"]}.
type AggregateChangeDoc struct {
	Name   string            `json:"name"`
	Set    map[string]string `json:"set"`
	Delete []string          `json:"delete"`
}

// DecodeAggregateChanges reads field as a list of AggregateChangeDoc,
// with the scenario's strict rules (exact keys, no null, no key twice);
// errors name field[i] and the key.
func DecodeAggregateChanges(field string, raw json.RawMessage) ([]engine.AggregateChange, error) {
	root, err := parseJSON(raw)
	if err != nil {
		return nil, &engine.ValidationError{Field: field, Msg: err.Error()}
	}
	d := &decoder{}
	var out []engine.AggregateChange
	d.list(field, root, func(p string, v *node) {
		var c engine.AggregateChange
		record(d, p, v, aggregateChangeFields, &c)
		out = append(out, c)
	})
	if d.err != nil {
		return nil, d.err
	}
	return out, nil
}

var aggregateChangeFields = []field[engine.AggregateChange]{
	{"name", true, func(d *decoder, p string, v *node, c *engine.AggregateChange) { c.Name = d.nonemptyString(p, v) }},
	{"set", false, func(d *decoder, p string, v *node, c *engine.AggregateChange) { c.Set = d.stringMap(p, v) }},
	{"delete", false, func(d *decoder, p string, v *node, c *engine.AggregateChange) { c.Delete = d.stringList(p, v, false) }},
}

// DecodeNames reads field as a list of non-empty strings; errors name
// field or field[i].
func DecodeNames(field string, raw json.RawMessage) ([]string, error) {
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil || isNull(raw) {
		return nil, &engine.ValidationError{Field: field, Msg: "want a list of host names"}
	}
	for i, n := range names {
		if n == "" {
			return nil, &engine.ValidationError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: "empty host name"}
		}
	}
	return names, nil
}

// DecodeInt reads field as an integer.
func DecodeInt(field string, raw json.RawMessage) (int, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || isNull(raw) {
		return 0, &engine.ValidationError{Field: field, Msg: "want an integer, got " + string(raw)}
	}
	return n, nil
}

package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/placer/placer/engine"
)

// ExplainDoc is an engine.Explanation as `placer explain` prints it and
// POST /v1/explain answers it (docs/explain.md).
type ExplainDoc struct {
	InstanceUUID string             `json:"instance_uuid"`
	Hosts        int                `json:"hosts"`
	Prefiltered  int                `json:"prefiltered"`
	Forced       bool               `json:"forced"`
	Filters      []FilterCountDoc   `json:"filters"`
	Candidates   int                `json:"candidates"`
	SubsetSize   int                `json:"subset_size"`
	Chosen       *HostWeightDoc     `json:"chosen"`
	Weighers     []WeigherBoundsDoc `json:"weighers"`
	Rejected     []HostRejectionDoc `json:"rejected"`
	Weighed      []HostWeightDoc    `json:"weighed"`
}

// FilterCountDoc is one filter's count of hosts before and after it.
type FilterCountDoc struct {
	Name  string `json:"name"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// WeigherBoundsDoc is one weigher's normalisation bounds.
type WeigherBoundsDoc struct {
	Weigher string  `json:"weigher"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// HostRejectionDoc is one host that did not pass.
type HostRejectionDoc struct {
	Host    string            `json:"host"`
	Node    string            `json:"node"`
	Filter  string            `json:"filter"`
	Reason  string            `json:"reason"`
	NovaLog bool              `json:"nova_log"`
	Check   *ResourceCheckDoc `json:"check,omitempty"`
}

// ResourceCheckDoc is what a resource filter compared.
type ResourceCheckDoc struct {
	Requested float64 `json:"requested"`
	Total     float64 `json:"total"`
	Used      float64 `json:"used"`
	Ratio     float64 `json:"ratio"`
	Limit     float64 `json:"limit"`
	Usable    float64 `json:"usable"`
	// SetBy names the aggregates whose metadata set ratio (limit for
	// the Aggregate I/O-ops and instance filters); absent when none did.
	SetBy []string `json:"set_by,omitempty"`
}

// HostWeightDoc is one candidate's weight, term by term.
type HostWeightDoc struct {
	Host     string           `json:"host"`
	Node     string           `json:"node"`
	Rank     int              `json:"rank"`
	Weight   float64          `json:"weight"`
	InSubset bool             `json:"in_subset"`
	Terms    []WeigherTermDoc `json:"terms"`
}

// WeigherTermDoc is one weigher's part of a weight.
type WeigherTermDoc struct {
	Weigher      string  `json:"weigher"`
	Raw          float64 `json:"raw"`
	Normalized   float64 `json:"normalized"`
	Multiplier   float64 `json:"multiplier"`
	Contribution float64 `json:"contribution"`
}

// ExplainOf is the document of e.
func ExplainOf(e *engine.Explanation) ExplainDoc {
	d := ExplainDoc{InstanceUUID: e.InstanceUUID, Hosts: e.InPlay, Prefiltered: e.Prefiltered, Forced: e.Forced,
		Candidates: e.Candidates, SubsetSize: e.SubsetSize,
		Filters: []FilterCountDoc{}, Weighers: []WeigherBoundsDoc{}, Rejected: []HostRejectionDoc{}, Weighed: []HostWeightDoc{}}
	for _, f := range e.Filters {
		d.Filters = append(d.Filters, FilterCountDoc{f.Name, f.Start, f.End})
	}
	for _, w := range e.Weighers {
		d.Weighers = append(d.Weighers, WeigherBoundsDoc{w.Weigher, w.Min, w.Max})
	}
	for _, r := range e.Rejected {
		rd := HostRejectionDoc{Host: r.Host, Node: r.Node, Filter: r.Filter, Reason: r.Reason, NovaLog: r.NovaLog}
		if c := r.Check; c != nil {
			rd.Check = &ResourceCheckDoc{c.Requested, c.Total, c.Used, c.Ratio, c.Limit, c.Usable, c.SetBy}
		}
		d.Rejected = append(d.Rejected, rd)
	}
	for _, w := range e.Weighed {
		d.Weighed = append(d.Weighed, hostWeightDoc(w))
	}
	if e.Chosen != nil {
		c := hostWeightDoc(*e.Chosen)
		d.Chosen = &c
	}
	return d
}

func hostWeightDoc(w engine.HostWeight) HostWeightDoc {
	d := HostWeightDoc{Host: w.Host, Node: w.Node, Rank: w.Rank, Weight: w.Weight, InSubset: w.InSubset, Terms: []WeigherTermDoc{}}
	for _, t := range w.Terms {
		d.Terms = append(d.Terms, WeigherTermDoc{t.Weigher, t.Raw, t.Normalized, t.Multiplier, t.Contribution})
	}
	return d
}

// ParseHostNode reads a host as the explain and capacity commands take
// it: "HOST" (every node of the host) or "HOST/NODE".
func ParseHostNode(s string) engine.HostNode {
	host, node, _ := strings.Cut(s, "/")
	return engine.HostNode{Host: host, Node: node}
}

// QueryDoc is the body of POST /v1/explain and POST /v1/capacity: a
// request (the "request" of a scenario) and the fields of the question.
type QueryDoc struct {
	Request engine.Request
	// Fields are the other top-level fields, undecoded, by name.
	Fields map[string]json.RawMessage
}

// DecodeQuery reads a query body: an object with a "request" (decoded as
// DecodeRequest decodes one; field paths start with "request") and the
// top-level fields allowed, left to the caller; any other field is an
// error naming it (the first in the document). The body is read with the
// scenario's strict rules: a key given twice, NaN and anything after the
// object are errors. Every error is a *engine.ValidationError.
func DecodeQuery(r io.Reader, allowed ...string) (QueryDoc, error) {
	data, err := readAll(r)
	if err != nil {
		return QueryDoc{}, &engine.ValidationError{Msg: "cannot read the body: " + err.Error()}
	}
	root, err := parseJSON(data)
	if err != nil {
		return QueryDoc{}, err
	}
	if root.kind != kObject {
		return QueryDoc{}, &engine.ValidationError{Msg: "want a JSON object with a \"request\", got " + show(root)}
	}
	for _, k := range root.keys {
		if k != "request" && !slices.Contains(allowed, k) {
			return QueryDoc{}, &engine.ValidationError{Field: k, Msg: fmt.Sprintf("unknown field (want request, %s)", strings.Join(allowed, ", "))}
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil { // valid JSON already: not expected
		return QueryDoc{}, &engine.ValidationError{Msg: "not valid JSON: " + err.Error()}
	}
	raw, ok := top["request"]
	if !ok {
		return QueryDoc{}, &engine.ValidationError{Field: "request", Msg: "missing"}
	}
	q := QueryDoc{Fields: map[string]json.RawMessage{}}
	for k, v := range top {
		if k != "request" {
			q.Fields[k] = v
		}
	}
	q.Request, err = DecodeRequest(bytes.NewReader(raw))
	return q, err
}

// isNull is whether raw is JSON's null, which the field decoders refuse
// rather than read as an empty value.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// DecodeHostList reads field as a list of hosts, each "HOST" or
// "HOST/NODE" (ParseHostNode); errors name field[i].
func DecodeHostList(field string, raw json.RawMessage) ([]engine.HostNode, error) {
	var names []string
	if err := json.Unmarshal(raw, &names); err != nil || isNull(raw) {
		return nil, &engine.ValidationError{Field: field, Msg: "want a list of host names (\"HOST\" or \"HOST/NODE\")"}
	}
	out := make([]engine.HostNode, len(names))
	for i, n := range names {
		if n == "" {
			return nil, &engine.ValidationError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: "empty host name"}
		}
		out[i] = ParseHostNode(n)
	}
	return out, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

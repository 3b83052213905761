package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/placer/placer/engine"
)

// Result is the result document of the format (docs/formats.md), what `placer place` prints.
// Floats are written by encoding/json, which round-trips them exactly.
type Result struct {
	Format     int         `json:"format"`
	Placements []Placement `json:"placements"`
	Error      *Error      `json:"error"`
}

// Placement is one instance's placement in a Result.
type Placement struct {
	InstanceUUID string     `json:"instance_uuid"`
	Host         string     `json:"host"`
	Node         string     `json:"node"`
	Cell         string     `json:"cell"`
	Weight       float64    `json:"weight"`
	Candidates   int        `json:"candidates"`
	Limits       Limits     `json:"limits"`
	Alternates   []HostNode `json:"alternates"`
}

// Limits holds the limits the resource filters set; only those are
// written.
type Limits struct {
	MemoryMB *float64 `json:"memory_mb,omitempty"`
	VCPU     *float64 `json:"vcpu,omitempty"`
	DiskGB   *float64 `json:"disk_gb,omitempty"`
}

// HostNode names an alternate.
type HostNode struct {
	Host string `json:"host"`
	Node string `json:"node"`
}

// Error is a result's error: NoValidHost, or the class name of another
// exception Nova would raise (ComputeHostMetricNotFound).
type Error struct {
	Kind          string        `json:"kind"`
	InstanceIndex int           `json:"instance_index"`
	Message       string        `json:"message"`
	Filters       []FilterCount `json:"filters"`
}

// FilterCount is how many hosts one filter started and ended with.
type FilterCount struct {
	Name  string `json:"name"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Error kinds.
const (
	KindNoValidHost    = "NoValidHost"
	KindMetricNotFound = "ComputeHostMetricNotFound"
)

// ResultOf builds the result document of a placement outcome (a Plan and
// the error PlaceBatch returned):
//
//   - nil error: one placement per instance;
//   - *engine.NoValidHostError: kind NoValidHost, the failing instance, the
//     message and per-filter counts, and the tentative placements made
//     before it;
//   - *engine.MetricNotFoundError: kind ComputeHostMetricNotFound;
//   - *engine.NovaError: its Kind.
//
// Any other error (bad input, a cancelled context) is not an outcome and is
// returned as it is.
func ResultOf(plan engine.Plan, err error) (Result, error) {
	doc := Result{Format: 1, Placements: []Placement{}}
	var (
		nvh *engine.NoValidHostError
		mnf *engine.MetricNotFoundError
		ne  *engine.NovaError
	)
	switch {
	case err == nil:
		doc.Placements = placements(plan.Placements)
	case errors.As(err, &nvh):
		doc.Placements = placements(nvh.Tentative)
		doc.Error = &Error{Kind: KindNoValidHost, InstanceIndex: nvh.InstanceIndex,
			Message: nvh.Error(), Filters: make([]FilterCount, 0, len(nvh.Filters))}
		for _, f := range nvh.Filters {
			doc.Error.Filters = append(doc.Error.Filters, FilterCount(f))
		}
	case errors.As(err, &mnf):
		doc.Placements = placements(mnf.Tentative)
		doc.Error = &Error{Kind: KindMetricNotFound, InstanceIndex: mnf.InstanceIndex,
			Message: mnf.Error(), Filters: []FilterCount{}}
	case errors.As(err, &ne):
		doc.Placements = placements(ne.Tentative)
		doc.Error = &Error{Kind: ne.Kind, InstanceIndex: ne.InstanceIndex,
			Message: ne.Error(), Filters: []FilterCount{}}
	default:
		return Result{}, err
	}
	return doc, nil
}

func placements(ps []engine.Placement) []Placement {
	out := make([]Placement, len(ps))
	for i, p := range ps {
		out[i] = Placement{
			InstanceUUID: p.InstanceUUID, Host: p.Host, Node: p.Node, Cell: p.Cell,
			Weight: p.Weight, Candidates: p.Candidates,
			Limits:     limits(p.Limits),
			Alternates: make([]HostNode, len(p.Alternates)),
		}
		for j, a := range p.Alternates {
			out[i].Alternates[j] = HostNode(a)
		}
	}
	return out
}

func limits(l engine.Limits) Limits {
	var out Limits
	if l.Set&engine.HasMemoryMB != 0 {
		out.MemoryMB = &l.MemoryMB
	}
	if l.Set&engine.HasVCPU != 0 {
		out.VCPU = &l.VCPU
	}
	if l.Set&engine.HasDiskGB != 0 {
		out.DiskGB = &l.DiskGB
	}
	return out
}

// Encode writes a result document as indented JSON (two spaces, as the
// oracle writes its own), followed by a newline. Nil lists are written as
// [] so that the document always has the contract's shape.
func Encode(w io.Writer, doc Result) error {
	doc.Placements = slices.Clone(doc.Placements)
	if doc.Placements == nil {
		doc.Placements = []Placement{}
	}
	for i := range doc.Placements {
		if doc.Placements[i].Alternates == nil {
			doc.Placements[i].Alternates = []HostNode{}
		}
	}
	if doc.Error != nil && doc.Error.Filters == nil {
		e := *doc.Error
		e.Filters = []FilterCount{}
		doc.Error = &e
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("scenario: encoding the result: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// DecodeResult reads a result document (unknown fields are an error).
func DecodeResult(r io.Reader) (Result, error) {
	var doc Result
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return Result{}, fmt.Errorf("scenario: reading a result: %w", err)
	}
	return doc, nil
}

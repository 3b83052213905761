package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

// admit takes an admission token for a request that places or explains;
// false means it has answered (503: queue full, or shutting down). The
// caller releases the token with the func returned.
func (s *Server) admit(w http.ResponseWriter, what string) (func(), bool) {
	select {
	case s.pending <- struct{}{}:
	default:
		writeError(w, http.StatusServiceUnavailable, "QueueFull", "",
			fmt.Sprintf("%d requests are already pending; retry later (%s)", cap(s.pending), what))
		return nil, false
	}
	if !s.ready.Load() {
		<-s.pending
		writeError(w, http.StatusServiceUnavailable, "Unavailable", "", "shutting down")
		return nil, false
	}
	return func() { <-s.pending }, true
}

// explain is POST /v1/explain: {"request": {...}, "hosts": ["H", "H/N"]}
// answered with an ExplainDoc on the newest snapshot.
func (s *Server) explain(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	q, err := scenario.DecodeQuery(bytes.NewReader(data), "hosts")
	if err != nil {
		badBody(w, err)
		return
	}
	var opts engine.ExplainOptions
	if raw, ok := q.Fields["hosts"]; ok {
		if opts.Hosts, err = scenario.DecodeHostList("hosts", raw); err != nil {
			badBody(w, err)
			return
		}
	}
	release, ok := s.admit(w, "explain")
	if !ok {
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	var e *engine.Explanation
	s.store.View(func(snap *engine.Snapshot) { e, err = engine.Explain(ctx, snap, q.Request, opts) })
	writeQueryAnswer(w, err, func() any { return scenario.ExplainOf(e) })
}

// writeQueryAnswer answers an explain or capacity query: 200 with the
// document, 400 naming the bad field, 422 where Nova would raise, 503 when
// the deadline passed.
func writeQueryAnswer(w http.ResponseWriter, err error, doc func() any) {
	var ne *engine.NovaError
	var me *engine.MetricNotFoundError
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, doc())
	case errors.Is(err, engine.ErrInvalid):
		badBody(w, err)
	case errors.As(err, &ne), errors.As(err, &me):
		writeError(w, http.StatusUnprocessableEntity, "NovaError", "", err.Error())
	default:
		writeEngineError(w, err)
	}
}

// defaultCapacityMax is POST /v1/capacity's max when the body gives none.
const defaultCapacityMax = 1000

// capacity is POST /v1/capacity: {"request": {...}, "max": N, "drain":
// ["H"], "aggregates": [{"name", "set", "delete"}]} answered with
// {"now": CapacityDoc} and, with a drain or aggregate changes, "after".
func (s *Server) capacity(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	q, err := scenario.DecodeQuery(bytes.NewReader(data), "max", "drain", "aggregates")
	if err != nil {
		badBody(w, err)
		return
	}
	max := defaultCapacityMax
	var drain []string
	var changes []engine.AggregateChange
	if raw, ok := q.Fields["max"]; ok && err == nil {
		max, err = scenario.DecodeInt("max", raw)
	}
	if raw, ok := q.Fields["drain"]; ok && err == nil {
		drain, err = scenario.DecodeNames("drain", raw)
	}
	if raw, ok := q.Fields["aggregates"]; ok && err == nil {
		changes, err = scenario.DecodeAggregateChanges("aggregates", raw)
	}
	if err != nil {
		badBody(w, err)
		return
	}
	release, ok := s.admit(w, "capacity")
	if !ok {
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	out := map[string]scenario.CapacityDoc{}
	answer := func(key string, snap *engine.Snapshot, opts engine.CapacityOptions) {
		if err != nil {
			return
		}
		var rep *engine.CapacityReport
		if rep, err = engine.Capacity(ctx, snap, q.Request, opts); err == nil {
			out[key] = scenario.CapacityOf(rep)
		}
	}
	if len(changes) == 0 {
		s.store.View(func(snap *engine.Snapshot) {
			answer("now", snap, engine.CapacityOptions{Max: max})
			if len(drain) > 0 {
				answer("after", snap, engine.CapacityOptions{Max: max, Drain: drain})
			}
		})
	} else {
		// A private snapshot: the store's rebuild with the changes, not
		// published; "now" is asked on the snapshot it was derived from,
		// so that both read the same usage.
		var before, after *engine.Snapshot
		if before, after, err = s.store.PreviewFrom(changes); err == nil {
			answer("now", before, engine.CapacityOptions{Max: max})
			answer("after", after, engine.CapacityOptions{Max: max, Drain: drain})
		}
		var ve *engine.ValidationError
		if errors.As(err, &ve) && strings.HasPrefix(ve.Field, "changes[") {
			ve.Field = "aggregates" + strings.TrimPrefix(ve.Field, "changes") // the body's
		}
	}
	writeQueryAnswer(w, err, func() any { return out })
}

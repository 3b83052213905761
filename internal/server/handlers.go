package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// newUUID is a random (version 4) uuid.
func newUUID() string {
	var u [16]byte
	rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// ErrorDoc is the body of every answer that is not a result document or a
// resource: {"error": {...}}.
type ErrorDoc struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody says what went wrong: Kind is BadRequest, NotFound,
// MethodNotAllowed, BodyTooLarge, Conflict, NovaError, QueueFull,
// Unauthorized, Unavailable or Internal; Field is the
// field path of a bad body (request.flavor.vcpus), when there is one.
type ErrorBody struct {
	Kind    string `json:"kind"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
	// InstanceUUIDs, in a placement's 503, are the request's instance
	// uuids (the service's own when the request gave none): with an
	// etcd store the commit's outcome may be unknown, and their keys
	// tell it.
	InstanceUUIDs []string `json:"instance_uuids,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	answerDeadline(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, "{\"error\": {\"kind\": \"Internal\", \"message\": %q}}\n", err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, kind, field, msg string) {
	writeJSON(w, status, ErrorDoc{ErrorBody{Kind: kind, Field: field, Message: msg}})
}

// writeEngineError answers an error of the Store or the Scheduler that is
// not a placement outcome: 404 for a node or instance the store does not
// hold (engine.ErrNotFound), 400 for its other refusals.
func writeEngineError(w http.ResponseWriter, err error) {
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve) && errors.Is(err, engine.ErrNotFound):
		writeError(w, http.StatusNotFound, "NotFound", ve.Field, err.Error())
	case errors.As(err, &ve):
		writeError(w, http.StatusBadRequest, "BadRequest", ve.Field, err.Error())
	case errors.Is(err, engine.ErrConflict):
		writeError(w, http.StatusConflict, "Conflict", "", err.Error())
	case errors.Is(err, engine.ErrClosed), errors.Is(err, engine.ErrUnavailable), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		writeError(w, http.StatusServiceUnavailable, "Unavailable", "", err.Error())
	default:
		writeError(w, http.StatusInternalServerError, "Internal", "", err.Error())
	}
}

// answerGrace is how long an answer has to be written from the moment
// it is ready (Serve's WriteTimeout counts from the request's headers:
// reading the body, queueing, placing and an etcd commit seen through
// to its outcome can take longer, and a committed placement's answer
// must not be lost to it).
var answerGrace = 30 * time.Second

// answerDeadline gives the answer about to be written answerGrace (a
// writer without deadlines, as in tests, keeps none).
func answerDeadline(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(answerGrace))
}

// readBody reads the body up to the limit; on an error it has answered
// (413 over the limit) and returns false.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "BodyTooLarge", "",
				fmt.Sprintf("request body over %d bytes", tooLarge.Limit))
		} else {
			writeError(w, http.StatusBadRequest, "BadRequest", "", "cannot read the body: "+err.Error())
		}
		return nil, false
	}
	return data, true
}

func badBody(w http.ResponseWriter, err error) {
	var ve *engine.ValidationError
	field := ""
	if errors.As(err, &ve) {
		field = ve.Field
	}
	writeError(w, http.StatusBadRequest, "BadRequest", field, err.Error())
}

// place is POST /v1/place.
func (s *Server) place(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	doc, err := scenario.DecodeRequestDocMax(bytes.NewReader(data), s.opts.MaxInstances, "partial")
	if err != nil {
		badBody(w, err)
		return
	}
	req := doc.Request
	if !doc.UUIDsGiven {
		// The defaults inst-0, inst-1... would collide with the previous
		// request's committed instances: a service makes fresh uuids.
		for i := range req.InstanceUUIDs {
			req.InstanceUUIDs[i] = newUUID()
		}
	}
	release, ok := s.admit(w, "placement")
	if !ok {
		return
	}
	defer release()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	var opts []engine.PlaceOption
	if doc.Flags["partial"] {
		// When the retry budget runs out, place once more on the newest
		// snapshot and keep what still fits.
		opts = append(opts, engine.PartialAfterConflicts())
	}
	plan, err := s.placeOrPanic(ctx, req, opts)
	result, rerr := scenario.ResultOf(plan, err)
	if rerr != nil {
		if errors.Is(rerr, engine.ErrUnavailable) {
			writeJSON(w, http.StatusServiceUnavailable, ErrorDoc{ErrorBody{Kind: "Unavailable", Message: rerr.Error(),
				InstanceUUIDs: req.InstanceUUIDs}})
			return
		}
		writeEngineError(w, rerr)
		return
	}
	status := http.StatusOK
	switch {
	case result.Error == nil:
	case result.Error.Kind == scenario.KindNoValidHost:
		status = http.StatusConflict
	default: // ComputeHostMetricNotFound and the like: the request cannot be placed as is
		status = http.StatusUnprocessableEntity
	}
	var buf bytes.Buffer
	if err := scenario.Encode(&buf, result); err != nil {
		writeError(w, http.StatusInternalServerError, "Internal", "", err.Error())
		return
	}
	answerDeadline(w)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// NodeDoc is a compute node as GET /v1/hosts answers it: the scenario's
// host fields (free_disk_mb as the scheduler keeps it) and the limits the
// enabled filters apply (absent: no enabled filter enforces it).
type NodeDoc struct {
	Host                string   `json:"host"`
	Node                string   `json:"node"`
	MemoryMB            int64    `json:"memory_mb"`
	FreeRAMMB           int64    `json:"free_ram_mb"`
	VCPUs               int64    `json:"vcpus"`
	VCPUsUsed           int64    `json:"vcpus_used"`
	LocalGB             int64    `json:"local_gb"`
	FreeDiskMB          int64    `json:"free_disk_mb"`
	NumInstances        int64    `json:"num_instances"`
	NumIOOps            int64    `json:"num_io_ops"`
	RAMAllocationRatio  *float64 `json:"ram_allocation_ratio,omitempty"`
	CPUAllocationRatio  *float64 `json:"cpu_allocation_ratio,omitempty"`
	DiskAllocationRatio *float64 `json:"disk_allocation_ratio,omitempty"`
	MaxIOOps            *int64   `json:"max_io_ops,omitempty"`
	MaxInstances        *int64   `json:"max_instances,omitempty"`
}

// HostDoc is GET /v1/hosts/{host}: every node of the host.
type HostDoc struct {
	Host            string    `json:"host"`
	SnapshotVersion uint64    `json:"snapshot_version"`
	Nodes           []NodeDoc `json:"nodes"`
}

// nodesOf returns the ids of host's nodes in snap (node "" means all).
func nodesOf(snap *engine.Snapshot, host, node string) []uint32 {
	var ids []uint32
	for id := range uint32(snap.Len()) {
		hn := snap.HostNode(id)
		if hn.Host == host && (node == "" || hn.Node == node) {
			ids = append(ids, id)
		}
	}
	return ids
}

// ifEnforced is &v when an enabled filter enforces the limit, else nil
// (left out of the document).
func ifEnforced[T any](on bool, v T) *T {
	if !on {
		return nil
	}
	return &v
}

func nodeDoc(snap *engine.Snapshot, id uint32) NodeDoc {
	hn, u, c := snap.HostNode(id), snap.Usage(id), snap.Capacity(id)
	e := c.Enforced
	return NodeDoc{
		Host: hn.Host, Node: hn.Node,
		MemoryMB: c.MemoryMB, FreeRAMMB: u.FreeRAMMB, VCPUs: c.VCPUs, VCPUsUsed: u.VCPUsUsed,
		LocalGB: c.LocalGB, FreeDiskMB: u.FreeDiskMB, NumInstances: u.NumInstances, NumIOOps: u.NumIOOps,
		RAMAllocationRatio: ifEnforced(e.RAM, c.RAMRatio), CPUAllocationRatio: ifEnforced(e.CPU, c.CPURatio), DiskAllocationRatio: ifEnforced(e.Disk, c.DiskRatio),
		MaxIOOps: ifEnforced(e.IOOps, c.MaxIOOps), MaxInstances: ifEnforced(e.Instances, c.MaxInstances),
	}
}

func notFoundHost(w http.ResponseWriter, host, node string) {
	what := fmt.Sprintf("no host %q", host)
	if node != "" {
		what = fmt.Sprintf("no host %q node %q", host, node)
	}
	writeError(w, http.StatusNotFound, "NotFound", "", what)
}

// getHost is GET /v1/hosts/{host} and /v1/hosts/{host}/{node}.
func (s *Server) getHost(w http.ResponseWriter, r *http.Request) {
	host, node := r.PathValue("host"), r.PathValue("node")
	snap := s.store.Snapshot()
	ids := nodesOf(snap, host, node)
	if len(ids) == 0 {
		notFoundHost(w, host, node)
		return
	}
	if node != "" {
		writeJSON(w, http.StatusOK, nodeDoc(snap, ids[0]))
		return
	}
	doc := HostDoc{Host: host, SnapshotVersion: snap.Version()}
	for _, id := range ids {
		doc.Nodes = append(doc.Nodes, nodeDoc(snap, id))
	}
	writeJSON(w, http.StatusOK, doc)
}

// VersionDoc answers a change: the version of the snapshot it published.
type VersionDoc struct {
	Version uint64 `json:"version"`
}

// lockHosts takes the host changes' lock (Server.hosts), or answers 503
// and returns false when ctx ends first (a client gone, the time limit
// passed behind other changes).
func (s *Server) lockHosts(ctx context.Context, w http.ResponseWriter) bool {
	select {
	case s.hosts <- struct{}{}:
		return true
	case <-ctx.Done():
		writeError(w, http.StatusServiceUnavailable, "Unavailable", "", "waiting for the host changes before this one: "+ctx.Err().Error())
		return false
	}
}

func (s *Server) unlockHosts() { <-s.hosts }

// changeContext is a host or instance change's context: the request's,
// bounded by RequestTimeout as a placement is (an etcd store's change
// waits for etcd and for its mirror).
func (s *Server) changeContext(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), s.opts.RequestTimeout)
}

// placeOrPanic is the Scheduler's Place, a panic of its worker (a bug)
// logged with its stack and answered 500, rather than the connection
// dropped without an answer; nothing of the request was committed.
func (s *Server) placeOrPanic(ctx context.Context, req engine.Request, opts []engine.PlaceOption) (plan engine.Plan, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, ok := v.(*engine.PlacementPanic)
			if !ok {
				panic(v)
			}
			s.log.Error("placement panicked", "panic", fmt.Sprint(p.Value), "stack", string(p.Stack))
			plan, err = engine.Plan{}, fmt.Errorf("placing the request panicked: %v", p.Value)
		}
	}()
	if s.beforePlace != nil {
		s.beforePlace(ctx)
	}
	return s.sched.Place(ctx, req, opts...)
}

// putHost is PUT /v1/hosts/{host}[/{node}]: a compute node reports its
// usage (node defaults to the host name).
func (s *Server) putHost(w http.ResponseWriter, r *http.Request) {
	host, node := r.PathValue("host"), r.PathValue("node")
	if node == "" {
		node = host
	}
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	u, err := scenario.DecodeUsage(bytes.NewReader(data))
	if err != nil {
		badBody(w, err)
		return
	}
	if len(nodesOf(s.store.Snapshot(), host, node)) == 0 {
		notFoundHost(w, host, node)
		return
	}
	ctx, cancel := s.changeContext(r)
	defer cancel()
	v, err := s.backend.UpdateHost(ctx, engine.HostNode{Host: host, Node: node}, u)
	if err != nil {
		writeEngineError(w, err) // 404 if the node was removed meanwhile
		return
	}
	writeJSON(w, http.StatusOK, VersionDoc{v})
}

// deleteHost is DELETE /v1/hosts/{host}[/{node}]: every node of the host,
// or one.
func (s *Server) deleteHost(w http.ResponseWriter, r *http.Request) {
	host, node := r.PathValue("host"), r.PathValue("node")
	ctx, cancel := s.changeContext(r)
	defer cancel()
	// No node of the host is added between the listing and the removal.
	if !s.lockHosts(ctx, w) {
		return
	}
	defer s.unlockHosts()
	snap := s.store.Snapshot()
	ids := nodesOf(snap, host, node)
	if len(ids) == 0 {
		notFoundHost(w, host, node)
		return
	}
	nodes := make([]engine.HostNode, len(ids))
	for i, id := range ids {
		nodes[i] = snap.HostNode(id)
	}
	v, err := s.backend.RemoveHosts(ctx, nodes...)
	if err != nil {
		// 404 when the store no longer holds a node (removed meanwhile,
		// by another process through etcd); any other refusal (the etcd
		// store's transaction limit) is 400.
		writeEngineError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, VersionDoc{v})
}

// addHost is POST /v1/hosts: one host object of the scenario format.
func (s *Server) addHost(w http.ResponseWriter, r *http.Request) {
	data, ok := s.readBody(w, r)
	if !ok {
		return
	}
	h, err := scenario.DecodeHost(bytes.NewReader(data))
	if err != nil {
		badBody(w, err)
		return
	}
	ctx, cancel := s.changeContext(r)
	defer cancel()
	if !s.lockHosts(ctx, w) {
		return
	}
	defer s.unlockHosts()
	if len(nodesOf(s.store.Snapshot(), h.Host, h.Node)) > 0 {
		writeError(w, http.StatusConflict, "Conflict", "", fmt.Sprintf("host %q node %q exists", h.Host, h.Node))
		return
	}
	v, err := s.backend.AddHosts(ctx, h)
	if err != nil {
		var ve *engine.ValidationError
		if errors.As(err, &ve) && len(nodesOf(s.store.Snapshot(), h.Host, h.Node)) > 0 {
			// Another process's addition of the node reached this one's
			// view meanwhile (an etcd store): the store's duplicate.
			writeError(w, http.StatusConflict, "Conflict", "", fmt.Sprintf("host %q node %q exists", h.Host, h.Node))
			return
		}
		writeEngineError(w, asHostBodyError(err))
		return
	}
	node := h.Node
	if node == "" {
		node = h.Host // Nova's default: the node is named as its host
	}
	w.Header().Set("Location", "/v1/hosts/"+url.PathEscape(h.Host)+"/"+url.PathEscape(node)) // names may hold "/", "?"
	writeJSON(w, http.StatusCreated, VersionDoc{v})
}

// asHostBodyError names the body's host of a store's refusal of an
// addition as the body's decoder does ("host", "host.host_ip"): the store
// names it by its index among the hosts joining, hosts[0]. The cloud's
// own hosts ("the cloud's hosts[j]") keep their names.
func asHostBodyError(err error) error {
	var ve *engine.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	rename := func(s string) string {
		const cloud = "the cloud's hosts[" // split off, so its index is never matched
		parts := strings.Split(s, cloud)
		for i := range parts {
			parts[i] = strings.ReplaceAll(parts[i], "hosts[0]", "host")
		}
		return strings.Join(parts, cloud)
	}
	named := *ve // a copy keeps what the error is (errors.Is)
	named.Field, named.Msg = rename(ve.Field), rename(ve.Msg)
	return &named
}

// deleteInstance is DELETE /v1/instances/{uuid}: release an instance
// committed through this server.
func (s *Server) deleteInstance(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := s.changeContext(r)
	defer cancel()
	v, err := s.backend.DeleteInstance(ctx, r.PathValue("uuid"))
	if err != nil {
		writeEngineError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, VersionDoc{v})
}

// StatsDoc is GET /v1/stats.
type StatsDoc struct {
	SnapshotVersion uint64 `json:"snapshot_version"`
	Hosts           int    `json:"hosts"` // compute nodes
	// Instances are the instances committed through the server and not
	// released.
	Instances int `json:"instances"`
	// Utilization is the used fraction of RAM, vCPUs and disk over every
	// host's totals ("ram", "vcpu", "disk").
	Utilization map[string]float64 `json:"utilization"`
	// QueueDepth is the requests waiting for a worker; Pending the
	// requests admitted (placements waiting or being placed, and the
	// explanations and capacity questions under way), out of MaxPending.
	QueueDepth float64 `json:"queue_depth"`
	Pending    int     `json:"pending"`
	MaxPending int     `json:"max_pending"`
	Workers    int     `json:"workers"`
	Requests   int64   `json:"requests"`
	Placed     int64   `json:"placed_requests"`
	Placements int64   `json:"placements"`
	// NoValidHost, ConflictRetries and ConflictFailures are the
	// Scheduler's counters.
	NoValidHost      int64 `json:"no_valid_host"`
	ConflictRetries  int64 `json:"conflict_retries"`
	ConflictFailures int64 `json:"conflict_failures"`
	// PartialPlaced is how many of the placed requests ("partial": true)
	// committed only some of their instances.
	PartialPlaced int64 `json:"partial_requests"`
	// WarmStarts counts the placements a worker started from its previous
	// batch (engine.SchedulerStats).
	WarmStarts int64 `json:"warm_starts"`
	// CacheRefreshes counts the workers' refreshes of their views of the
	// hosts under --cache-interval (0 without it).
	CacheRefreshes int64 `json:"cache_refreshes"`
}

// stats is GET /v1/stats.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) {
	snap := s.store.Snapshot()
	st := s.sched.Stats()
	writeJSON(w, http.StatusOK, StatsDoc{
		SnapshotVersion: snap.Version(), Hosts: snap.Len(), Instances: s.store.Instances(),
		Utilization: snap.Utilization().Map(), QueueDepth: s.gauge("placer_queue_depth"),
		Pending: len(s.pending), MaxPending: cap(s.pending), Workers: s.opts.Workers,
		Requests: st.Requests, Placed: st.Placed, Placements: st.Instances,
		NoValidHost: st.NoValidHost, ConflictRetries: st.ConflictRetries, ConflictFailures: st.ConflictFailures,
		PartialPlaced: st.Partial, WarmStarts: st.WarmStarts, CacheRefreshes: st.CacheRefreshes,
	})
}

// gauge reads a gauge of the registry (0 when it has none).
func (s *Server) gauge(name string) float64 {
	mfs, err := s.reg.Gather()
	if err != nil {
		return 0
	}
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) > 0 {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return 0
}

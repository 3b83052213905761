// Package server is the HTTP API of "placer serve": a placement service
// over an engine.Store and its engine.Scheduler, with the field names of
// docs/formats.md; the API is described in docs/http-api.md.
//
//	POST   /v1/place                  place a request (body: a request of docs/formats.md,
//	                                  plus "partial": true); answer: the result document
//	POST   /v1/explain                why each host passes or fails a request (docs/explain.md)
//	POST   /v1/capacity               how many more of a flavor fit, now and after changes
//	GET    /v1/hosts/{host}[/{node}]  a host's nodes (or one node): usage and capacity
//	PUT    /v1/hosts/{host}[/{node}]  a compute node's usage report
//	DELETE /v1/hosts/{host}[/{node}]  remove a host's nodes (or one node)
//	POST   /v1/hosts                  add a host (body: a host of docs/formats.md)
//	DELETE /v1/instances/{uuid}       release an instance committed here
//	GET    /v1/stats                  version, hosts, utilization, queue depth, counters
//	GET    /metrics                   Prometheus metrics (placer_*, Go runtime)
//	GET    /debug/pprof/              runtime profiles
//	GET    /healthz, /readyz          liveness, readiness
//
// Every request goes through the commit layer: placements are computed on
// the newest snapshot and committed by the Store, host changes are Store
// commits, so no client ever sees a half-applied change.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/engine/etcdstore"
)

// Defaults of Options.
const (
	DefaultMaxBodyBytes    = 1 << 20
	DefaultMaxInstances    = 1000
	DefaultRequestTimeout  = 30 * time.Second
	DefaultShutdownTimeout = 30 * time.Second
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Workers, QueueSize and RetryBudget configure the Scheduler (see
	// engine.SchedulerOptions; 0 means its defaults).
	Workers, QueueSize, RetryBudget int
	// CacheInterval, when positive, runs the Scheduler in its caching
	// mode (engine.SchedulerOptions.CacheInterval, Nova's
	// CachingScheduler): each worker places on a view of the hosts
	// refreshed at most this often; commits are re-checked as ever
	// (docs/concurrency.md).
	CacheInterval time.Duration
	// MaxPending bounds the requests admitted at once: placements
	// (waiting in the Scheduler's queue or being placed), explanations
	// and capacity questions share it; one more is answered 503 at once.
	// 0 means Workers + QueueSize as the Scheduler resolves them.
	MaxPending int
	// MaxBodyBytes bounds a request body (413 beyond it); 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxInstances bounds a placement request's num_instances (400
	// beyond it, before it is admitted: a short body could otherwise ask
	// a worker for a million placements); 0 means DefaultMaxInstances.
	MaxInstances int
	// RequestTimeout bounds one placement (queueing included), explanation,
	// capacity question or host or instance change; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ShutdownTimeout bounds how long Serve waits for in-flight requests
	// once its context ends; 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// Logger receives one structured line per request and the lifecycle
	// events; nil means slog.Default().
	Logger *slog.Logger
	// Tokens, when not empty, are the bearer tokens a request must carry
	// (RequireTokens; /healthz and /readyz stay open). TLS is the
	// listener's business: see TLSConfig.
	Tokens []string
}

// Backend is the commit layer a Server places, commits and changes the
// cloud through: an engine.Store (New), or a cloud shared with other
// processes through etcd (an *etcdstore.Store, NewEtcd). The changes
// return the version of the snapshot that shows them; a change naming a
// node or an instance the store does not hold returns an error matching
// engine.ErrNotFound (answered 404).
type Backend interface {
	engine.Backend
	UpdateHost(ctx context.Context, hn engine.HostNode, u engine.HostUsage) (uint64, error)
	AddHosts(ctx context.Context, hosts ...engine.Host) (uint64, error)
	RemoveHosts(ctx context.Context, nodes ...engine.HostNode) (uint64, error)
	DeleteInstance(ctx context.Context, uuid string) (uint64, error)
}

// localBackend is an in-process engine.Store as a Backend. A change
// whose context ended before it starts is not made.
type localBackend struct{ *engine.Store }

func (b localBackend) UpdateHost(ctx context.Context, hn engine.HostNode, u engine.HostUsage) (uint64, error) {
	if err := ctx.Err(); err != nil { // a change waiting its turn past its time
		return 0, err
	}
	return b.Store.UpdateHost(hn, u)
}

func (b localBackend) AddHosts(ctx context.Context, hosts ...engine.Host) (uint64, error) {
	if err := ctx.Err(); err != nil { // a change waiting its turn past its time
		return 0, err
	}
	return b.Store.AddHosts(hosts...)
}

func (b localBackend) RemoveHosts(ctx context.Context, nodes ...engine.HostNode) (uint64, error) {
	if err := ctx.Err(); err != nil { // a change waiting its turn past its time
		return 0, err
	}
	return b.Store.RemoveHosts(nodes...)
}

func (b localBackend) DeleteInstance(ctx context.Context, uuid string) (uint64, error) {
	if err := ctx.Err(); err != nil { // a change waiting its turn past its time
		return 0, err
	}
	return b.Store.DeleteInstance(uuid)
}

// Server is the placement service: a Store, a Scheduler over it, their
// metrics on a registry of its own, and the HTTP handlers.
type Server struct {
	store        *engine.Store // the backend's local store: snapshots are read here
	backend      Backend
	closeBackend func()
	closeOnce    sync.Once
	sched        *engine.Scheduler
	reg          *prometheus.Registry
	log          *slog.Logger
	opts         Options
	pending      chan struct{} // admission: one token per admitted placement
	ready        atomic.Bool
	// hosts, a lock of one slot, makes POST /v1/hosts's existence check
	// and the addition one step (two clients adding one host get 201 and
	// 409), and DELETE /v1/hosts/{host}'s listing of the host's nodes and
	// their removal (a node of the host added meanwhile is removed with
	// it, or added after the removal's version). A change waiting for it
	// gives up with its context (lockHosts).
	hosts   chan struct{}
	handler http.Handler

	// beforePlace, when set (tests), runs in the place handler once the
	// request is admitted, before the Scheduler sees it.
	beforePlace func(ctx context.Context)
}

// New builds the Store of cloud (engine.NewStore validates it), the
// Scheduler and the metrics. Close stops the Scheduler.
func New(cloud engine.Cloud, opts Options) (*Server, error) {
	return newServer(opts, func(m *engine.Metrics, _ prometheus.Registerer) (Backend, func(), error) {
		store, err := engine.NewStore(cloud, engine.StoreOptions{Metrics: m})
		if err != nil {
			return nil, nil, err
		}
		return localBackend{store}, func() {}, nil
	})
}

// NewEtcd serves the cloud shared through etcd under eopts.Prefix (loaded
// there before: etcdstore.Load), on the client cli (the caller's; Close
// does not close it): an etcdstore.Store, whose etcd metrics join the
// registry, and the Scheduler over it. Close stops the Scheduler, then
// the store's watch.
func NewEtcd(ctx context.Context, cli *clientv3.Client, eopts etcdstore.Options, opts Options) (*Server, error) {
	return newServer(opts, func(m *engine.Metrics, reg prometheus.Registerer) (Backend, func(), error) {
		em, err := etcdstore.NewMetrics(reg)
		if err != nil {
			return nil, nil, err
		}
		eopts.Local.Metrics, eopts.Metrics = m, em
		st, err := etcdstore.Open(ctx, cli, eopts)
		if err != nil {
			return nil, nil, err
		}
		return st, st.Close, nil
	})
}

func newServer(opts Options, backend func(*engine.Metrics, prometheus.Registerer) (Backend, func(), error)) (*Server, error) {
	if opts.Workers <= 0 {
		opts.Workers = defaultWorkers()
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 4 * opts.Workers
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = opts.Workers + opts.QueueSize
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxInstances <= 0 {
		opts.MaxInstances = DefaultMaxInstances
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m, err := engine.NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	b, closeBackend, err := backend(m, reg)
	if err != nil {
		return nil, err
	}
	s := &Server{
		store: b.Local(), backend: b, closeBackend: closeBackend,
		sched: engine.NewSchedulerOn(b, engine.SchedulerOptions{
			Workers: opts.Workers, QueueSize: opts.QueueSize, RetryBudget: opts.RetryBudget, Metrics: m,
			CacheInterval: opts.CacheInterval,
		}),
		reg: reg, log: opts.Logger, opts: opts,
		pending: make(chan struct{}, opts.MaxPending),
		hosts:   make(chan struct{}, 1),
	}
	s.ready.Store(true)
	s.handler = s.routes()
	return s, nil
}

// Store is the server's store (to inspect it, or to change it besides the
// API); with etcd, the local mirror (change the cloud through Backend).
func (s *Server) Store() *engine.Store { return s.store }

// Backend is the server's commit layer.
func (s *Server) Backend() Backend { return s.backend }

// Scheduler is the server's scheduler.
func (s *Server) Scheduler() *engine.Scheduler { return s.sched }

// Registry is the Prometheus registry /metrics serves.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Handler is the server's HTTP API, with request logging.
func (s *Server) Handler() http.Handler { return s.handler }

// Close marks the server not ready and stops the Scheduler once the
// requests it holds are done. Place requests after it answer 503.
func (s *Server) Close() error {
	s.ready.Store(false)
	err := s.sched.Close()
	s.closeOnce.Do(s.closeBackend)
	return err
}

// Serve serves the API on ln until ctx ends, then shuts down gracefully:
// /readyz turns 503, the listener closes, the requests in flight finish
// (up to Options.ShutdownTimeout) and the Scheduler stops. It returns nil
// after a graceful shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      s.opts.RequestTimeout + answerGrace, // and each answer gets answerGrace once ready (answerDeadline)
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "hosts", s.store.Snapshot().Len())
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing requests in flight")
	s.ready.Store(false)
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		hs.Close()
		err = fmt.Errorf("shutdown: %w", err)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if serr := <-errc; err == nil && !errors.Is(serr, http.ErrServerClosed) {
		err = serr
	}
	s.log.Info("stopped", "version", s.store.Version())
	return err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/place", s.place)
	mux.HandleFunc("POST /v1/explain", s.explain)
	mux.HandleFunc("POST /v1/capacity", s.capacity)
	mux.HandleFunc("GET /v1/hosts/{host}", s.getHost)
	mux.HandleFunc("GET /v1/hosts/{host}/{node}", s.getHost)
	mux.HandleFunc("PUT /v1/hosts/{host}", s.putHost)
	mux.HandleFunc("PUT /v1/hosts/{host}/{node}", s.putHost)
	mux.HandleFunc("DELETE /v1/hosts/{host}", s.deleteHost)
	mux.HandleFunc("DELETE /v1/hosts/{host}/{node}", s.deleteHost)
	mux.HandleFunc("POST /v1/hosts", s.addHost)
	mux.HandleFunc("DELETE /v1/instances/{uuid}", s.deleteInstance)
	mux.HandleFunc("GET /v1/stats", s.stats)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "shutting down"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	return s.logged(s.authenticated(unrouted(mux)))
}

// unrouted answers a request no route takes (an unknown path, a method the
// path does not take) with an error document, as every other error is
// answered; the mux's own 404 and 405 answers are plain text. Redirects to
// a canonical path are the mux's.
func unrouted(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern == "" {
			probe := &probeWriter{header: http.Header{}}
			h.ServeHTTP(probe, r) // the mux's 404 or 405 handler: it only answers
			switch probe.status {
			case http.StatusNotFound:
				writeError(w, http.StatusNotFound, "NotFound", "", "no route for "+r.URL.Path)
				return
			case http.StatusMethodNotAllowed:
				w.Header().Set("Allow", probe.header.Get("Allow"))
				writeError(w, http.StatusMethodNotAllowed, "MethodNotAllowed", "",
					r.Method+" is not allowed on "+r.URL.Path+" (allowed: "+probe.header.Get("Allow")+")")
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// probeWriter keeps the status and header a handler answers with, and
// drops its body.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }

func (p *probeWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}

func (p *probeWriter) Write(b []byte) (int, error) {
	p.WriteHeader(http.StatusOK)
	return len(b), nil
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (pprof's
// profile handler extends its write deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logged logs one line per request: method, path, status, duration.
func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		level := slog.LevelInfo
		if sw.status >= 500 {
			level = slog.LevelWarn
		}
		s.log.LogAttrs(r.Context(), level, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)),
			slog.String("remote", r.RemoteAddr))
	})
}

package soak

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/server"
)

// placeBody is a request body: n instances of flavor f, with uuids when
// given, in group g (anti-affinity) when not "".
func placeBody(n int, f flavor, uuids []string, g string, partial bool) []byte {
	m := map[string]any{"num_instances": n, "flavor": f}
	if uuids != nil {
		m["instance_uuids"] = uuids
	}
	if g != "" {
		m["instance_group"] = map[string]any{"uuid": g, "policy": "anti-affinity"}
	}
	if partial {
		m["partial"] = true
	}
	b, _ := json.Marshal(m)
	return b
}

type resultDoc struct {
	Placements []struct {
		InstanceUUID string `json:"instance_uuid"`
		Host         string `json:"host"`
		Node         string `json:"node"`
	} `json:"placements"`
	Error *struct {
		Kind string `json:"kind"`
	} `json:"error"`
}

func (s *soak) place(r *rand.Rand) {
	fi := r.IntN(len(flavors))
	n := 1 + r.IntN(4)
	g := ""
	if r.IntN(8) == 0 {
		s.st.mu.Lock()
		if len(s.st.groups) == 0 || r.IntN(3) == 0 {
			s.st.groups = append(s.st.groups, fmt.Sprintf("soak-group-%s-%d", s.tag, s.seq.Add(1)))
		}
		g = s.st.groups[r.IntN(len(s.st.groups))]
		s.st.mu.Unlock()
	}
	partial := r.IntN(10) == 0
	code, b, err := s.do("place", http.MethodPost, "/v1/place", placeBody(n, flavors[fi], nil, g, partial),
		http.StatusOK, http.StatusConflict, http.StatusServiceUnavailable)
	if err != nil || code != http.StatusOK {
		return
	}
	var res resultDoc
	if err := json.Unmarshal(b, &res); err != nil || res.Error != nil || (len(res.Placements) != n && !partial) {
		s.problem(BadStatus, "POST /v1/place answered 200 with %s", trim(b))
		return
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for _, p := range res.Placements {
		hn := engine.HostNode{Host: p.Host, Node: p.Node}
		if _, dup := s.st.live[p.InstanceUUID]; dup {
			s.problem(BadStatus, "POST /v1/place answered instance %s, which a client already holds", p.InstanceUUID)
			continue
		}
		s.st.addLive(p.InstanceUUID, inst{host: hn, flavor: fi, group: g})
		s.st.placedOn[hn]++
		s.st.seenNodes[hn] = true
		s.placed.Add(1)
	}
}

func (s *soak) deleteInstance(r *rand.Rand) {
	s.st.mu.Lock()
	if len(s.st.liveList) == 0 {
		s.st.mu.Unlock()
		return
	}
	u := s.st.liveList[r.IntN(len(s.st.liveList))]
	in, _ := s.st.dropLive(u)
	s.st.mu.Unlock()
	code, _, err := s.do("delete", http.MethodDelete, "/v1/instances/"+url.PathEscape(u), nil, http.StatusOK, http.StatusNotFound)
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	switch {
	case err != nil:
		s.st.addLive(u, in) // not known: checked at the end
	case code == http.StatusOK:
		s.repMu.Lock()
		s.rep.Deleted++
		s.repMu.Unlock()
	case code == http.StatusNotFound:
		s.st.suspects[u] = in // fine only if its host was removed
	}
}

// usageOf is the usage a node of GET /v1/hosts/{host} reports.
func usageOf(n *server.NodeDoc) engine.HostUsage {
	return engine.HostUsage{FreeRAMMB: n.FreeRAMMB, FreeDiskMB: n.FreeDiskMB, VCPUsUsed: n.VCPUsUsed,
		NumInstances: n.NumInstances, NumIOOps: n.NumIOOps}
}

// pickHost draws a host that is not removed, among those with keep.
func (s *soak) pickHost(r *rand.Rand, keep func(*hostInfo) bool) *hostInfo {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	for range 8 {
		h := s.st.hosts[r.IntN(len(s.st.hosts))]
		if !h.removed && !h.removing && keep(h) {
			return h
		}
	}
	return nil
}

// report is a compute node's usage report: its usage as read, the I/O
// finished (num_io_ops 0), as placer simulate's updater sends it.
func (s *soak) report(r *rand.Rand) {
	h := s.pickHost(r, func(h *hostInfo) bool { return h.reported })
	if h == nil {
		return
	}
	code, b, err := s.do("report", http.MethodGet, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK, http.StatusNotFound)
	if err != nil || code != http.StatusOK {
		return
	}
	var doc server.HostDoc
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Nodes) == 0 {
		s.problem(BadStatus, "GET /v1/hosts/%s answered %s", h.name, trim(b))
		return
	}
	n := doc.Nodes[r.IntN(len(doc.Nodes))]
	body, _ := json.Marshal(map[string]int64{"free_ram_mb": n.FreeRAMMB, "free_disk_gb": n.FreeDiskMB / 1024,
		"vcpus_used": n.VCPUsUsed, "num_instances": n.NumInstances, "num_io_ops": 0})
	s.do("report", http.MethodPut, "/v1/hosts/"+url.PathEscape(n.Host)+"/"+url.PathEscape(n.Node), body,
		http.StatusOK, http.StatusNotFound)
}

func (s *soak) read(r *rand.Rand) {
	if r.IntN(2) == 0 {
		s.do("read", http.MethodGet, "/v1/stats", nil, http.StatusOK)
		return
	}
	if h := s.pickHost(r, func(*hostInfo) bool { return true }); h != nil {
		s.do("read", http.MethodGet, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK, http.StatusNotFound)
	}
}

func newHost(name string) engine.Host {
	return engine.Host{Host: name, Node: name, MemoryMB: 65536, FreeRAMMB: 65536, VCPUs: 16, LocalGB: 500, FreeDiskGB: 500}
}

func (s *soak) addHost(name string, reported, removable bool) error {
	h := newHost(name)
	body, _ := json.Marshal(map[string]any{"host": h.Host, "memory_mb": h.MemoryMB, "free_ram_mb": h.FreeRAMMB,
		"vcpus": h.VCPUs, "vcpus_used": 0, "local_gb": h.LocalGB, "free_disk_gb": h.FreeDiskGB})
	code, _, err := s.do("add-host", http.MethodPost, "/v1/hosts", body, http.StatusCreated)
	if err != nil {
		return err
	}
	if code != http.StatusCreated {
		return nil
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.hosts != nil {
		if _, err := s.hosts.Add(h); err != nil {
			return err
		}
	}
	hi := &hostInfo{name: name, reported: reported, removable: removable}
	s.st.addInfo(hi)
	s.st.added = append(s.st.added, h)
	s.repMu.Lock()
	s.rep.HostsAdded++
	s.repMu.Unlock()
	return nil
}

// addHostTwice adds one new host from two clients at once: one must get
// 201, the other 409 (the host exists).
func (s *soak) addHostTwice() {
	name := fmt.Sprintf("soak-twice-%s-%d", s.tag, s.seq.Add(1))
	h := newHost(name)
	body, _ := json.Marshal(map[string]any{"host": h.Host, "memory_mb": h.MemoryMB, "free_ram_mb": h.FreeRAMMB,
		"vcpus": h.VCPUs, "vcpus_used": 0, "local_gb": h.LocalGB, "free_disk_gb": h.FreeDiskGB})
	var codes [2]int
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = s.do("add-host-twice", http.MethodPost, "/v1/hosts", body, http.StatusCreated, http.StatusConflict)
		}()
	}
	wg.Wait()
	if codes[0]+codes[1] != http.StatusCreated+http.StatusConflict {
		if codes[0] == http.StatusCreated || codes[1] == http.StatusCreated {
			s.problem(BadStatus, "POST /v1/hosts of %s from two clients at once answered %d and %d (want 201 and 409)", name, codes[0], codes[1])
		}
		if codes[0] != http.StatusCreated && codes[1] != http.StatusCreated {
			return // neither added it (the problems are counted)
		}
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	if s.hosts != nil {
		s.hosts.Add(h)
	}
	hi := &hostInfo{name: name, removable: true}
	s.st.addInfo(hi)
	s.st.added = append(s.st.added, h)
	s.repMu.Lock()
	s.rep.HostsAdded++
	s.repMu.Unlock()
}

// removeHost removes a removable host: at most a tenth of the hosts go.
func (s *soak) removeHost(r *rand.Rand) {
	s.st.mu.Lock()
	if s.st.removedN*10 >= len(s.st.hosts) {
		s.st.mu.Unlock()
		return
	}
	s.st.mu.Unlock()
	s.st.mu.Lock()
	var h *hostInfo
	for range 8 {
		if len(s.st.removable) == 0 {
			break
		}
		c := s.st.removable[r.IntN(len(s.st.removable))]
		if !c.removing && !c.removed {
			h = c
			break
		}
	}
	if h == nil {
		s.st.mu.Unlock()
		return
	}
	h.removing = true
	s.st.removedN++
	s.st.mu.Unlock()
	code, _, err := s.do("remove-host", http.MethodDelete, "/v1/hosts/"+url.PathEscape(h.name), nil, http.StatusOK)
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	h.removing = false
	if err != nil || code != http.StatusOK {
		s.st.removedN--
		return
	}
	h.removed = true
	s.repMu.Lock()
	s.rep.HostsRemoved++
	s.repMu.Unlock()
}

// badBodies are bodies the API must answer 400, by path.
var badBodies = []struct{ method, path, body string }{
	{http.MethodPost, "/v1/place", `{`},
	{http.MethodPost, "/v1/place", `[]`},
	{http.MethodPost, "/v1/place", `{"flavor": {"vcpus": "two"}}`},
	{http.MethodPost, "/v1/place", `{"flavor": {"memory_mb": 512}, "colour": "blue"}`},
	{http.MethodPost, "/v1/place", `{"num_instances": 2, "instance_uuids": ["a"], "flavor": {"memory_mb": 512}}`},
	{http.MethodPost, "/v1/place", `{"flavor": {"memory_mb": 512}} trailing`},
	{http.MethodPost, "/v1/place", ""},
	{http.MethodPost, "/v1/hosts", `{"host": ""}`},
	{http.MethodPost, "/v1/hosts", `{"host": "x", "memory_mb": "lots"}`},
	{http.MethodPut, "/v1/hosts/%s", `{"free_ram_mb": 1}`},
	{http.MethodPut, "/v1/hosts/%s", `{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": -1}`},
	{http.MethodPut, "/v1/hosts/%s", `not json`},
}

func (s *soak) badBody(r *rand.Rand) {
	b := badBodies[r.IntN(len(badBodies))]
	path := b.path
	if strings.Contains(path, "%s") {
		h := s.pickHost(r, func(*hostInfo) bool { return true })
		if h == nil {
			return
		}
		path = fmt.Sprintf(path, url.PathEscape(h.name))
	}
	s.do("bad-body", b.method, path, []byte(b.body), http.StatusBadRequest)
}

// xs reads as an endless run of 'x'.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// oversized sends a body past the server's limit: 413, or the server
// closing the connection while the body is still being sent.
func (s *soak) oversized(r *rand.Rand) {
	paths := []struct{ method, path string }{{http.MethodPost, "/v1/place"}, {http.MethodPost, "/v1/hosts"}}
	p := paths[r.IntN(len(paths))]
	// Streamed, not held: a client holding --max-body bytes per request
	// ran out of memory at a few gigabytes.
	const head = `{"flavor": {"memory_mb": 512}, "x": "`
	n := max(s.o.MaxBodyBytes+1, int64(len(head))) + int64(r.IntN(64<<10))
	body := io.MultiReader(strings.NewReader(head), io.LimitReader(xs{}, n-int64(len(head))))
	req, err := http.NewRequestWithContext(s.ctx, p.method, s.o.URL+p.path, body)
	if err != nil {
		return
	}
	req.ContentLength = n
	resp, err := s.c.Do(req)
	if err != nil {
		if s.ctx.Err() == nil {
			s.count("oversized", "transport-error") // the server may close before reading it all
		}
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	s.count("oversized", strconv.Itoa(resp.StatusCode))
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		s.problem(BadStatus, "%s %s with %d bytes answered %d (want 413): %s", p.method, p.path, n, resp.StatusCode, trim(b))
	}
}

// hangUp places with given uuids and hangs up: in the middle of sending
// the body, or while waiting for the answer. Whether its instances were
// committed is probed at the end.
func (s *soak) hangUp(r *rand.Rand, sending bool) {
	n := 1 + r.IntN(3)
	uuids := make([]string, n)
	k := s.seq.Add(1)
	for i := range uuids {
		uuids[i] = fmt.Sprintf("soak-hangup-%s-%d-%d", s.tag, k, i)
	}
	s.st.mu.Lock()
	s.st.maybe = append(s.st.maybe, uuids...)
	s.st.mu.Unlock()
	s.repMu.Lock()
	s.rep.HungUp += int64(n)
	s.repMu.Unlock()
	body := placeBody(n, flavors[r.IntN(len(flavors))], uuids, "", false)
	hctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	var rd io.Reader = bytes.NewReader(body)
	op := "hang-up-waiting"
	if sending {
		// Half the body, then nothing until the client gives up.
		op = "hang-up-sending"
		pr, pw := io.Pipe()
		go func() {
			pw.Write(body[:len(body)/2])
			<-hctx.Done()
			pw.CloseWithError(hctx.Err())
		}()
		rd = pr
	}
	req, err := http.NewRequestWithContext(hctx, http.MethodPost, s.o.URL+"/v1/place", rd)
	if err != nil {
		return
	}
	time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, cancel)
	resp, err := s.c.Do(req)
	if err != nil {
		s.count(op, "hung-up")
		return
	}
	// Answered before the client hung up: the uuids are probed at the
	// end all the same.
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s.count(op, strconv.Itoa(resp.StatusCode))
}

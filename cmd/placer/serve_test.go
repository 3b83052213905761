package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/placer/placer/internal/testcerts"
)

// lockedBuffer is a bytes.Buffer that the server's goroutines may log to
// while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs "placer serve args..." in-process. If it starts listening,
// it returns the address; if it exits first, the status. stop ends it and
// returns its status.
func startServe(t *testing.T, args ...string) (addr string, status int, stderr *lockedBuffer, stop func() int) {
	t.Helper()
	stderr = &lockedBuffer{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serveContext(ctx, args, stderr, func(a net.Addr) { addrc <- a.String() })
	}()
	stopped := false
	stop = func() int {
		cancel()
		if !stopped {
			stopped = true
			status = <-done
		}
		return status
	}
	t.Cleanup(func() { stop() })
	select {
	case addr = <-addrc:
		return addr, -1, stderr, stop
	case status = <-done:
		stopped = true
		return "", status, stderr, stop
	}
}

func TestServeRefusesPlainBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "placer-host.invalid:0", "[::ffff:0.0.0.0]:0"} {
		bound, status, stderr, _ := startServe(t, "--synthetic", "3", "--addr", addr)
		if bound != "" || status != exitBadInput {
			t.Errorf("--addr %s without TLS: listening on %q, status %d; want refused, %d", addr, bound, status, exitBadInput)
		}
		for _, flag := range []string{"--tls-cert", "--tls-key", "--insecure-plain-http"} {
			if !strings.Contains(stderr.String(), flag) {
				t.Errorf("--addr %s without TLS: stderr %q does not name %s", addr, stderr, flag)
			}
		}
	}
}

func TestServeFlagErrors(t *testing.T) {
	certs := testcerts.New(t)
	empty := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(empty, []byte("# none yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", certs.ServerCertFile}, "want both --tls-cert and --tls-key"},
		{[]string{"--tls-key", certs.ServerKeyFile}, "want both --tls-cert and --tls-key"},
		{[]string{"--client-ca", certs.CAFile}, "--client-ca needs --tls-cert and --tls-key"},
		{[]string{"--tls-cert", certs.ServerCertFile, "--tls-key", certs.ServerKeyFile, "--insecure-plain-http"}, "contradicts"},
		{[]string{"--tls-cert", certs.ServerCertFile, "--tls-key", certs.ClientKeyFile}, "TLS certificate"},
		{[]string{"--tls-cert", certs.ServerCertFile, "--tls-key", certs.ServerKeyFile, "--client-ca", certs.ServerKeyFile}, "no PEM certificate"},
		{[]string{"--token-file", empty}, "no token in it"},
		{[]string{"--token-file", empty + ".missing"}, "token file"},
		{[]string{"--cache-interval", "-1s"}, "--cache-interval >= 0"},
	} {
		args := append([]string{"--synthetic", "3", "--addr", "127.0.0.1:0"}, tc.args...)
		addr, status, stderr, _ := startServe(t, args...)
		if addr != "" || status != exitBadInput || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: listening on %q, status %d, stderr %q; want %d and %q", tc.args, addr, status, stderr, exitBadInput, tc.want)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080":        true,
		"127.1.2.3:80":          true,
		"localhost:8080":        true,
		"LocalHost:1":           true,
		"[::1]:8080":            true,
		"[::ffff:127.0.0.1]:80": true,
		"[::1%lo]:80":           true,
		"0.0.0.0:8080":          false,
		":8080":                 false,
		"[::]:8080":             false,
		"128.0.0.1:80":          false,
		"10.0.0.1:80":           false,
		"localhost.example:80":  false,
		"127.0.0.1.nip.io:80":   false,
		"127.0.0.1":             false, // no port: not an address to listen on
		"":                      false,
	} {
		if got := loopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestServeSecured runs placer serve with TLS, client certificates and a
// token file, and checks who gets in.
func TestServeSecured(t *testing.T) {
	certs := testcerts.New(t)
	tokens := filepath.Join(certs.Dir, "tokens")
	if err := os.WriteFile(tokens, []byte("# placer\nt0ken-a\nt0ken-b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, status, stderr, stop := startServe(t, "--synthetic", "3", "--addr", "127.0.0.1:0",
		"--tls-cert", certs.ServerCertFile, "--tls-key", certs.ServerKeyFile,
		"--client-ca", certs.CAFile, "--token-file", tokens)
	if addr == "" {
		t.Fatalf("placer serve exited %d: %s", status, stderr)
	}
	get := func(cfg *tls.Config, scheme, path, token string) (int, error) {
		req, err := http.NewRequest("GET", scheme+"://"+addr+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	for _, tc := range []struct {
		name        string
		cfg         *tls.Config
		scheme      string
		path, token string
		want        int // 0: the connection fails
	}{
		{"cert and token", certs.ClientTLS(), "https", "/v1/stats", "t0ken-b", 200},
		{"cert, no token", certs.ClientTLS(), "https", "/v1/stats", "", 401},
		{"cert, bad token", certs.ClientTLS(), "https", "/metrics", "t0ken-c", 401},
		{"cert, probe", certs.ClientTLS(), "https", "/readyz", "", 200},
		{"token, no cert", certs.ClientTLSNoCert(), "https", "/v1/stats", "t0ken-a", 0},
		{"no cert, probe", certs.ClientTLSNoCert(), "https", "/healthz", "", 0},
		{"plain HTTP", nil, "http", "/v1/stats", "t0ken-a", 400},
	} {
		got, err := get(tc.cfg, tc.scheme, tc.path, tc.token)
		if got != tc.want {
			t.Errorf("%s: GET %s: %d (%v), want %d", tc.name, tc.path, got, err, tc.want)
		}
	}
	if status := stop(); status != exitOK {
		t.Errorf("placer serve: exit %d after its context ended, want 0: %s", status, stderr)
	}
}

// TestServeInsecurePlainHTTP: the flag that says so lets placer serve
// listen on every interface without TLS (the test talks to it on
// loopback only).
func TestServeInsecurePlainHTTP(t *testing.T) {
	addr, status, stderr, stop := startServe(t, "--synthetic", "3", "--addr", "0.0.0.0:0", "--insecure-plain-http")
	if addr == "" {
		t.Fatalf("placer serve exited %d: %s", status, stderr)
	}
	_, port, _ := net.SplitHostPort(addr)
	resp, err := http.Get("http://127.0.0.1:" + port + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /healthz: %d", resp.StatusCode)
	}
	if !strings.Contains(stderr.String(), "unencrypted") {
		t.Errorf("stderr %q: want a warning that traffic is unencrypted", stderr)
	}
	if status := stop(); status != exitOK {
		t.Errorf("exit %d, want 0", status)
	}
}

package server

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/placer/placer/internal/testcerts"
)

// serveTLS serves a server of 4 hosts with opts on a loopback listener
// wrapped in cfg, as placer serve does, and returns its https URL.
func serveTLS(t *testing.T, opts Options, cfg *tls.Config) string {
	t.Helper()
	opts.Logger = quietLogger()
	opts.Workers = 1
	s, err := New(testCloud(4), opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, tls.NewListener(ln, cfg)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "https://" + ln.Addr().String()
}

// client is an HTTP client with TLS configuration cfg (nil: plain) that
// does not keep connections, so that every request shakes hands anew.
func client(cfg *tls.Config) *http.Client {
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true},
	}
}

// get sends a GET with an optional Authorization header and returns the
// status and body, or the transport's error.
func get(c *http.Client, url, authorization string) (int, string, http.Header, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, "", nil, err
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header, err
}

func TestTLS(t *testing.T) {
	certs := testcerts.New(t)
	cfg, err := TLSConfig(certs.ServerCertFile, certs.ServerKeyFile, "")
	if err != nil {
		t.Fatal(err)
	}
	url := serveTLS(t, Options{}, cfg)

	status, body, _, err := get(client(certs.ClientTLSNoCert()), url+"/v1/stats", "")
	if err != nil || status != http.StatusOK || !strings.Contains(body, `"hosts"`) {
		t.Fatalf("GET /v1/stats over TLS: %d %q %v", status, body, err)
	}
	// Plain HTTP to the TLS port: Go's TLS server answers a bare 400
	// ("Client sent an HTTP request to an HTTPS server") and serves nothing.
	plain := "http://" + strings.TrimPrefix(url, "https://")
	if status, body, _, err := get(client(nil), plain+"/v1/stats", ""); err == nil && (status != http.StatusBadRequest || strings.Contains(body, `"hosts"`)) {
		t.Errorf("plain HTTP to the TLS port: %d %q, want 400 or an error", status, body)
	}
	// A client that does not trust the CA refuses the server.
	if _, _, _, err := get(client(&tls.Config{}), url+"/healthz", ""); err == nil {
		t.Error("a client without the CA: want the server certificate refused")
	}
}

func TestClientCertificates(t *testing.T) {
	certs := testcerts.New(t)
	cfg, err := TLSConfig(certs.ServerCertFile, certs.ServerKeyFile, certs.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	url := serveTLS(t, Options{}, cfg)

	if status, body, _, err := get(client(certs.ClientTLS()), url+"/v1/stats", ""); err != nil || status != http.StatusOK {
		t.Fatalf("a client certificate of the CA: %d %q %v", status, body, err)
	}
	for _, path := range []string{"/v1/stats", "/healthz"} {
		if status, _, _, err := get(client(certs.ClientTLSNoCert()), url+path, ""); err == nil {
			t.Errorf("GET %s without a client certificate: %d, want the handshake refused", path, status)
		}
	}
	other := testcerts.New(t) // another CA: its client certificate must not pass
	foreign := other.ClientTLS()
	foreign.RootCAs = certs.CA.Pool()
	if status, _, _, err := get(client(foreign), url+"/v1/stats", ""); err == nil {
		t.Errorf("a client certificate of another CA: %d, want the handshake refused", status)
	}
	// The server certificate is a client certificate of the CA too.
	both := certs.ClientTLS()
	both.Certificates = []tls.Certificate{certs.Server.TLS}
	if status, _, _, err := get(client(both), url+"/healthz", ""); err != nil || status != http.StatusOK {
		t.Errorf("the server certificate as a client certificate: %d %v", status, err)
	}
}

func TestTokens(t *testing.T) {
	_, ts := newTestServer(t, 4, Options{Tokens: []string{"s3cret-one", "s3cret-two"}})
	c := client(nil)
	for _, tc := range []struct {
		path, auth string
		status     int
		challenge  string // WWW-Authenticate
	}{
		{"/v1/stats", "", 401, `Bearer realm="placer"`},
		{"/v1/stats", "Bearer wrong", 401, `Bearer realm="placer", error="invalid_token"`},
		{"/v1/stats", "Bearer s3cret-on", 401, `Bearer realm="placer", error="invalid_token"`},
		{"/v1/stats", "Bearer s3cret-one-", 401, `Bearer realm="placer", error="invalid_token"`},
		{"/v1/stats", "Basic czNjcmV0LW9uZQ==", 401, `Bearer realm="placer"`},
		{"/v1/stats", "Bearer ", 401, `Bearer realm="placer"`},
		{"/v1/stats", "s3cret-one", 401, `Bearer realm="placer"`},
		{"/v1/stats", "Bearer s3cret-one", 200, ""},
		{"/v1/stats", "bearer s3cret-two", 200, ""},
		{"/v1/hosts/h1", "Bearer s3cret-two", 200, ""},
		{"/v1/hosts/h1", "", 401, `Bearer realm="placer"`},
		{"/metrics", "", 401, `Bearer realm="placer"`},
		{"/metrics", "Bearer s3cret-one", 200, ""},
		{"/debug/pprof/", "", 401, `Bearer realm="placer"`},
		{"/debug/pprof/cmdline", "Bearer nope", 401, `Bearer realm="placer", error="invalid_token"`},
		{"/debug/pprof/", "Bearer s3cret-one", 200, ""},
		{"/nonexistent", "", 401, `Bearer realm="placer"`},
		{"/healthz", "", 200, ""},
		{"/readyz", "", 200, ""},
		{"/healthz", "Bearer wrong", 200, ""},
	} {
		status, body, h, err := get(c, ts.URL+tc.path, tc.auth)
		if err != nil {
			t.Fatal(err)
		}
		if status != tc.status || h.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("GET %s with %q: %d, WWW-Authenticate %q; want %d, %q (%.80q)",
				tc.path, tc.auth, status, h.Get("WWW-Authenticate"), tc.status, tc.challenge, body)
		}
		if status == 401 && !strings.Contains(body, `"kind": "Unauthorized"`) {
			t.Errorf("GET %s with %q: body %q, want an Unauthorized error document", tc.path, tc.auth, body)
		}
	}
	// A write without a token changes nothing.
	req, _ := http.NewRequest("DELETE", ts.URL+"/v1/hosts/h1", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("DELETE /v1/hosts/h1 without a token: %d, want 401", resp.StatusCode)
	}
	if status, _, _, _ := get(c, ts.URL+"/v1/hosts/h1", "Bearer s3cret-one"); status != 200 {
		t.Errorf("h1 after an unauthorized DELETE: %d, want it still there", status)
	}
}

func TestRequireTokensNone(t *testing.T) {
	if _, err := RequireTokens(http.NotFoundHandler(), nil); err == nil {
		t.Error("RequireTokens without tokens: want an error")
	}
}

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := LoadTokens(write("ok", "# placer tokens\n\n  abc123  \r\ndef456\n# old: xyz\n"))
	if err != nil || strings.Join(got, ",") != "abc123,def456" {
		t.Errorf("LoadTokens: %q %v, want abc123, def456", got, err)
	}
	for name, text := range map[string]string{
		"empty":    "",
		"comments": "# nothing\n\n",
		"blank":    "abc def\n",
	} {
		if got, err := LoadTokens(write(name, text)); err == nil {
			t.Errorf("LoadTokens(%s): %q, want an error", name, got)
		}
	}
	if _, err := LoadTokens(filepath.Join(dir, "missing")); err == nil {
		t.Error("LoadTokens of a missing file: want an error")
	}
}

func TestTLSConfigErrors(t *testing.T) {
	certs := testcerts.New(t)
	if _, err := TLSConfig(certs.ServerCertFile, certs.ClientKeyFile, ""); err == nil {
		t.Error("a certificate with another certificate's key: want an error")
	}
	if _, err := TLSConfig(certs.ServerCertFile, certs.ServerKeyFile, certs.ServerKeyFile); err == nil {
		t.Error("a client CA file without a certificate: want an error")
	}
	if _, err := TLSConfig(certs.ServerCertFile, certs.ServerKeyFile, filepath.Join(certs.Dir, "missing.pem")); err == nil {
		t.Error("a missing client CA file: want an error")
	}
	cfg, err := TLSConfig(certs.ServerCertFile, certs.ServerKeyFile, certs.CAFile)
	if err != nil || cfg.ClientAuth != tls.RequireAndVerifyClientCert || cfg.MinVersion != tls.VersionTLS12 {
		t.Errorf("TLSConfig with a client CA: %+v %v", cfg, err)
	}
}

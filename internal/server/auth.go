package server

// Who may talk to placer serve (issue 19, "nobody in who does not
// belong"): TLS with an optional client-certificate check, set up on the
// listener (TLSConfig), and an optional bearer-token check on every
// request (Options.Tokens, RequireTokens).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// OpenPaths are the paths that answer without a token: the liveness and
// readiness probes, which a load balancer or kubelet calls without
// credentials and which tell nothing about the cloud. /metrics and
// /debug/pprof are not among them.
var OpenPaths = []string{"/healthz", "/readyz"}

// TLSConfig is the TLS configuration of a server presenting the
// certificate chain of certFile and the key of keyFile (PEM). With a
// clientCAFile (PEM, one or more CA certificates), every client must
// present a certificate that chains to one of them; the handshake fails
// otherwise. TLS 1.2 is the oldest version accepted.
func TLSConfig(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS certificate %s, key %s: %w", certFile, keyFile, err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAFile != "" {
		data, err := os.ReadFile(clientCAFile)
		if err != nil {
			return nil, fmt.Errorf("client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("client CA %s: no PEM certificate in it", clientCAFile)
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// LoadTokens reads a token file: one bearer token a line; surrounding
// blanks, empty lines and lines starting with "#" are skipped. A token
// may not contain blanks, and the file must hold at least one.
func LoadTokens(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	var tokens []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.ContainsAny(line, " \t") {
			return nil, fmt.Errorf("token file %s:%d: a token may not contain blanks", file, n)
		}
		tokens = append(tokens, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("token file %s: %w", file, err)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("token file %s: no token in it", file)
	}
	return tokens, nil
}

// errNoTokens is RequireTokens' answer to an empty token list: a check
// that nobody can pass is a configuration mistake, not a policy.
var errNoTokens = errors.New("server: RequireTokens without a token")

// RequireTokens wraps h so that a request must carry "Authorization:
// Bearer T" for one of tokens, except on OpenPaths. A request without
// one is answered 401 with WWW-Authenticate: Bearer realm="placer"; a
// wrong one 401 with error="invalid_token" too (RFC 6750). Tokens are
// compared by their SHA-256 in constant time, every one of them each
// time, so that neither a token's length nor which token came close
// shows in the answer's timing.
func RequireTokens(h http.Handler, tokens []string) (http.Handler, error) {
	if len(tokens) == 0 {
		return nil, errNoTokens
	}
	sums := make([][sha256.Size]byte, len(tokens))
	for i, t := range tokens {
		sums[i] = sha256.Sum256([]byte(t))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range OpenPaths {
			if r.URL.Path == p {
				h.ServeHTTP(w, r)
				return
			}
		}
		token, ok := bearer(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="placer"`)
			writeError(w, http.StatusUnauthorized, "Unauthorized", "", "missing bearer token (Authorization: Bearer TOKEN)")
			return
		}
		sum := sha256.Sum256([]byte(token))
		match := 0
		for i := range sums {
			match |= subtle.ConstantTimeCompare(sum[:], sums[i][:])
		}
		if match != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="placer", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "Unauthorized", "", "invalid bearer token")
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

// bearer is the token of an Authorization header of the Bearer scheme
// (the scheme's name is case-insensitive, RFC 7235).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// authenticated is h behind the token check when Options.Tokens asks for
// one.
func (s *Server) authenticated(h http.Handler) http.Handler {
	if len(s.opts.Tokens) == 0 {
		return h
	}
	a, _ := RequireTokens(h, s.opts.Tokens) // fails on no tokens alone
	return a
}

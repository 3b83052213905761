package testcerts

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// handshake runs one TLS handshake over loopback TCP, the server then
// writing "ok", and returns the client's error (the handshake's or the
// read's: a server refusing the client's certificate is seen there under
// TLS 1.3) and the server's.
func handshake(t *testing.T, server, client *tls.Config) (clientErr, serverErr error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		sc := tls.Server(c, server)
		if err := sc.Handshake(); err != nil {
			done <- err
			return
		}
		_, err = sc.Write([]byte("ok"))
		done <- err
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	cc := tls.Client(c, client)
	if clientErr = cc.Handshake(); clientErr == nil {
		var b []byte
		b, clientErr = io.ReadAll(cc)
		if clientErr == nil && string(b) != "ok" {
			clientErr = fmt.Errorf("read %q, want ok", b)
		}
	}
	c.Close()
	return clientErr, <-done
}

func TestSetHandshakes(t *testing.T) {
	s := New(t)
	for _, host := range LoopbackHosts {
		cfg := s.ClientTLS()
		cfg.ServerName = host
		if cerr, serr := handshake(t, s.ServerTLS(true), cfg); cerr != nil || serr != nil {
			t.Fatalf("%s: mutual TLS: client %v, server %v", host, cerr, serr)
		}
	}
	cfg := s.ClientTLS()
	cfg.ServerName = "example.com"
	if cerr, _ := handshake(t, s.ServerTLS(false), cfg); cerr == nil {
		t.Error("a server certificate valid for example.com: want it refused")
	}
	cfg = s.ClientTLSNoCert()
	cfg.ServerName = "localhost"
	if cerr, serr := handshake(t, s.ServerTLS(true), cfg); cerr == nil || serr == nil {
		t.Error("a client without a certificate: want the server to refuse it")
	}
	other := New(t)
	cfg = other.ClientTLS()
	cfg.RootCAs = s.CA.Pool()
	cfg.ServerName = "localhost"
	if cerr, serr := handshake(t, s.ServerTLS(true), cfg); cerr == nil || serr == nil {
		t.Error("a client certificate of another CA: want the server to refuse it")
	}
}

func TestSetFiles(t *testing.T) {
	s := New(t)
	for _, kp := range [][2]string{{s.ServerCertFile, s.ServerKeyFile}, {s.ClientCertFile, s.ClientKeyFile}} {
		pair, err := tls.LoadX509KeyPair(kp[0], kp[1])
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := leaf.Verify(x509.VerifyOptions{Roots: s.CA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("%s: %v", kp[0], err)
		}
		if fi, err := os.Stat(kp[1]); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want 0600", kp[1], fi.Mode().Perm(), err)
		}
	}
	pem, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		t.Error("ca.pem: no certificate")
	}
}

// Package testcerts makes throwaway X.509 certificates for tests: a CA
// (ECDSA P-256), server certificates for the loopback names (127.0.0.1,
// ::1, localhost) and client certificates, as PEM and as crypto/tls
// values, so that TLS and client-certificate checks are tested without
// files checked into the repository or an openssl step. The certificates
// live a day; the keys never leave the test's temporary directory.
//
// NewSet(dir) makes the usual trio (a CA, a server certificate that also
// serves as a client certificate, as etcd peers want, and a client
// certificate) and writes them to dir; New(t) does it in t.TempDir().
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// LoopbackHosts are the names a server certificate of Set is valid for.
var LoopbackHosts = []string{"127.0.0.1", "::1", "localhost"}

// Validity is how long the certificates made here are valid, from an
// hour before they are made (clock skew between a test's processes).
const Validity = 24 * time.Hour

// CA is a certificate authority: a self-signed certificate and its key.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	PEM  []byte // Cert, PEM-encoded
}

// NewCA makes a CA named commonName.
func NewCA(commonName string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"placer tests"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(Validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, Key: key, PEM: pemBlock("CERTIFICATE", der)}, nil
}

// Pool is a certificate pool holding the CA alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Usage says what a certificate is for (its extended key usages).
type Usage int

const (
	ServerAuth Usage = 1 << iota // a TLS server
	ClientAuth                   // a TLS client
)

// Cert is a certificate issued by a CA, with its key.
type Cert struct {
	Cert    *x509.Certificate
	CertPEM []byte
	KeyPEM  []byte // PKCS #8, "PRIVATE KEY"
	TLS     tls.Certificate
}

// Issue makes a certificate named commonName for usage, valid for hosts
// (IP addresses or DNS names, in its subject alternative names).
func (ca *CA) Issue(commonName string, usage Usage, hosts ...string) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := serialNumber()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"placer tests"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(Validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	if usage&ServerAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	if usage&ClientAuth != 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &Cert{
		Cert:    cert,
		CertPEM: pemBlock("CERTIFICATE", der),
		KeyPEM:  pemBlock("PRIVATE KEY", keyDER),
		TLS:     tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert},
	}, nil
}

// Set is a CA, a server certificate for LoopbackHosts (usable as a client
// certificate too: etcd peers present the same certificate both ways)
// and a client certificate, written as PEM files into Dir.
type Set struct {
	CA             *CA
	Server, Client *Cert
	Dir            string
	CAFile         string // the CA certificate
	ServerCertFile string
	ServerKeyFile  string
	ClientCertFile string
	ClientKeyFile  string
}

// NewSet makes a Set and writes its files into dir (ca.pem, server.pem,
// server-key.pem, client.pem, client-key.pem; keys mode 0600).
func NewSet(dir string) (*Set, error) {
	ca, err := NewCA("placer test CA")
	if err != nil {
		return nil, err
	}
	server, err := ca.Issue("placer test server", ServerAuth|ClientAuth, LoopbackHosts...)
	if err != nil {
		return nil, err
	}
	client, err := ca.Issue("placer test client", ClientAuth)
	if err != nil {
		return nil, err
	}
	s := &Set{
		CA: ca, Server: server, Client: client, Dir: dir,
		CAFile:         filepath.Join(dir, "ca.pem"),
		ServerCertFile: filepath.Join(dir, "server.pem"),
		ServerKeyFile:  filepath.Join(dir, "server-key.pem"),
		ClientCertFile: filepath.Join(dir, "client.pem"),
		ClientKeyFile:  filepath.Join(dir, "client-key.pem"),
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{s.CAFile, ca.PEM, 0o644},
		{s.ServerCertFile, server.CertPEM, 0o644},
		{s.ServerKeyFile, server.KeyPEM, 0o600},
		{s.ClientCertFile, client.CertPEM, 0o644},
		{s.ClientKeyFile, client.KeyPEM, 0o600},
	} {
		if err := os.WriteFile(f.name, f.data, f.mode); err != nil {
			return nil, fmt.Errorf("testcerts: %w", err)
		}
	}
	return s, nil
}

// New is NewSet in t.TempDir(), failing t on an error.
func New(t testing.TB) *Set {
	t.Helper()
	s, err := NewSet(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ServerTLS is a server configuration presenting the server certificate;
// with requireClientCert, clients must present a certificate of the CA.
func (s *Set) ServerTLS(requireClientCert bool) *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{s.Server.TLS}, MinVersion: tls.VersionTLS12}
	if requireClientCert {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = s.CA.Pool()
	}
	return c
}

// ClientTLS is a client configuration trusting the CA and presenting the
// client certificate.
func (s *Set) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: s.CA.Pool(), Certificates: []tls.Certificate{s.Client.TLS}, MinVersion: tls.VersionTLS12}
}

// ClientTLSNoCert is ClientTLS without a client certificate.
func (s *Set) ClientTLSNoCert() *tls.Config {
	return &tls.Config{RootCAs: s.CA.Pool(), MinVersion: tls.VersionTLS12}
}

func serialNumber() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/placer/placer/internal/etcdtest"
)

// TestEtcdLoadAndServe: placer etcd load seeds a TLS etcd (client
// certificates required), two placer serve --etcd share it, the second
// serving HTTPS with client certificates required itself: an instance
// placed on one is on the other, and the second cannot place it again.
func TestEtcdLoadAndServe(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{TLS: true})
	certs := c.Certs()
	etcdArgs := []string{"--etcd", strings.Join(c.Endpoints(), ","), "--etcd-prefix", "/cloud1/",
		"--etcd-cacert", certs.CAFile, "--etcd-cert", certs.ClientCertFile, "--etcd-key", certs.ClientKeyFile}
	var stdout, stderr bytes.Buffer
	if status := run(append([]string{"etcd", "load", "--synthetic", "5"}, etcdArgs...), nil, &stdout, &stderr); status != exitOK {
		t.Fatalf("placer etcd load: %d: %s", status, stderr.String())
	}
	if !strings.Contains(stdout.String(), "loaded 5 hosts") {
		t.Errorf("placer etcd load said %q", stdout.String())
	}
	// Without the client certificate etcd refuses the connection.
	defer func(d time.Duration) { etcdProbeTimeout = d }(etcdProbeTimeout)
	etcdProbeTimeout = 2 * time.Second
	stderr.Reset()
	if status := run([]string{"etcd", "load", "--synthetic", "5", "--etcd", c.Endpoints()[0], "--etcd-cacert", certs.CAFile}, nil, &stdout, &stderr); status == exitOK {
		t.Error("placer etcd load without a client certificate succeeded")
	} else if !strings.Contains(stderr.String(), "cannot reach etcd") {
		t.Errorf("without a client certificate: %q", stderr.String())
	}

	// The first serves plain HTTP on loopback, the second HTTPS with
	// client certificates (the etcd cluster's CA signs both sides).
	tlsArgs := [][]string{nil, {"--tls-cert", certs.ServerCertFile, "--tls-key", certs.ServerKeyFile, "--client-ca", certs.CAFile}}
	var urls []string
	for _, extra := range tlsArgs {
		addr, status, errs, _ := startServe(t, append(append([]string{"--addr", "127.0.0.1:0"}, etcdArgs...), extra...)...)
		if addr == "" {
			t.Fatalf("placer serve --etcd %q exited %d: %s", extra, status, errs)
		}
		scheme := "http://"
		if extra != nil {
			scheme = "https://"
		}
		urls = append(urls, scheme+addr)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: certs.ClientTLS()}}
	noCert := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: certs.ClientTLSNoCert()}}
	if resp, err := noCert.Get(urls[1] + "/v1/stats"); err == nil {
		resp.Body.Close()
		t.Errorf("the HTTPS server answered a client without a certificate: %d", resp.StatusCode)
	}
	post := func(url, body string) int {
		resp, err := client.Post(url+"/v1/place", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const vm = `{"instance_uuids": ["vm-1"], "flavor": {"memory_mb": 1024, "vcpus": 1, "root_gb": 1}}`
	if code := post(urls[0], vm); code != http.StatusOK {
		t.Fatalf("place on the first: %d", code)
	}
	instances := func(url string) int {
		resp, err := client.Get(url + "/v1/stats")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct{ Instances int }
		json.NewDecoder(resp.Body).Decode(&st)
		return st.Instances
	}
	for deadline := time.Now().Add(10 * time.Second); instances(urls[1]) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second server does not see the first one's instance")
		}
	}
	if code := post(urls[1], vm); code != http.StatusBadRequest {
		t.Errorf("vm-1 again on the second: %d, want 400", code)
	}
}

func TestEtcdFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--etcd", "http://10.1.2.3:2379"}, "plain http beyond loopback"},
		{[]string{"serve", "--etcd", "http://127.0.0.1:2379", "--synthetic", "3"}, "want exactly one of"},
		{[]string{"serve", "--etcd", "https://127.0.0.1:2379", "--etcd-cert", "c.pem"}, "want both --etcd-cert and --etcd-key"},
		{[]string{"etcd", "load", "--synthetic", "3"}, "want --etcd"},
		{[]string{"etcd", "load", "--etcd", "http://127.0.0.1:2379"}, "want exactly one of --cloud"},
		{[]string{"etcd", "load", "--etcd", "http://127.0.0.1:2379", "--synthetic", "4194305"}, "want --synthetic from 1 to 4194304, got 4194305"},
		{[]string{"etcd"}, "placer etcd load"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, nil, &stdout, &stderr)
		if status != exitBadInput || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tc.args, status, stderr.String(), exitBadInput, tc.want)
		}
	}
}

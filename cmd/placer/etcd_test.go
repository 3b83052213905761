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
// certificates required), two placer serve --etcd share it: an instance
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

	var addrs []string
	for range 2 {
		addr, status, errs, _ := startServe(t, append([]string{"--addr", "127.0.0.1:0"}, etcdArgs...)...)
		if addr == "" {
			t.Fatalf("placer serve --etcd exited %d: %s", status, errs)
		}
		addrs = append(addrs, addr)
	}
	post := func(addr, body string) int {
		resp, err := http.Post("http://"+addr+"/v1/place", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const vm = `{"instance_uuids": ["vm-1"], "flavor": {"memory_mb": 1024, "vcpus": 1, "root_gb": 1}}`
	if code := post(addrs[0], vm); code != http.StatusOK {
		t.Fatalf("place on the first: %d", code)
	}
	instances := func(addr string) int {
		resp, err := http.Get("http://" + addr + "/v1/stats")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st struct{ Instances int }
		json.NewDecoder(resp.Body).Decode(&st)
		return st.Instances
	}
	for deadline := time.Now().Add(10 * time.Second); instances(addrs[1]) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second server does not see the first one's instance")
		}
	}
	if code := post(addrs[1], vm); code != http.StatusBadRequest {
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
		{[]string{"etcd"}, "placer etcd load"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, nil, &stdout, &stderr)
		if status != exitBadInput || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tc.args, status, stderr.String(), exitBadInput, tc.want)
		}
	}
}

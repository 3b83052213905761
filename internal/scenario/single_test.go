package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
)

func TestDecodeRequest(t *testing.T) {
	req, err := DecodeRequest(strings.NewReader(`{"num_instances": 2, "flavor": {"memory_mb": 512, "vcpus": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.NumInstances != 2 || len(req.InstanceUUIDs) != 2 || req.InstanceUUIDs[1] != "inst-1" || req.Flavor.MemoryMB != 512 {
		t.Errorf("got %+v", req)
	}
	for body, want := range map[string]string{
		`{"flavor": {"vcpus": "two"}}`:        `request.flavor.vcpus: want an integer`,
		`{"num_instances": 1}`:                `request.flavor: required field is missing`,
		`{"flavor": {}, "partial": true}`:     `request.partial: unknown field`,
		`[]`:                                  `request: want an object`,
		`{"flavor": {}, "flavor": {}}`:        `duplicate`,
		`{"flavor": {}, "instance_uuids": 3}`: `request.instance_uuids`,
	} {
		_, err := DecodeRequest(strings.NewReader(body))
		if !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", body, err, want)
		}
	}
}

func TestDecodeRequestDoc(t *testing.T) {
	doc, err := DecodeRequestDoc(strings.NewReader(`{"partial": true, "instance_uuids": ["a"], "flavor": {}}`), "partial")
	if err != nil || !doc.Flags["partial"] || !doc.UUIDsGiven || doc.Request.InstanceUUIDs[0] != "a" {
		t.Errorf("got %+v, %v", doc, err)
	}
	_, err = DecodeRequestDoc(strings.NewReader(`{"partial": 1, "flavor": {}}`), "partial")
	if err == nil || !strings.HasPrefix(err.Error(), "request.partial: want true or false") {
		t.Errorf("got %v", err)
	}
}

func TestDecodeHost(t *testing.T) {
	h, err := DecodeHost(strings.NewReader(`{"host": "h9", "memory_mb": 1024, "free_ram_mb": 1024, "vcpus": 2,
		"vcpus_used": 0, "local_gb": 10, "free_disk_gb": 10}`))
	if err != nil {
		t.Fatal(err)
	}
	if h.Host != "h9" || h.Node != "h9" || h.Cell != "cell1" || h.UUID != MadeUpUUID("host", "h9", "h9") {
		t.Errorf("got %+v", h)
	}
	_, err = DecodeHost(strings.NewReader(`{"host": "h9", "memory_mb": "x"}`))
	if err == nil || !strings.HasPrefix(err.Error(), "host.memory_mb: want") {
		t.Errorf("got %v", err)
	}
}

func TestDecodeUsage(t *testing.T) {
	u, err := DecodeUsage(strings.NewReader(`{"free_ram_mb": -512, "free_disk_gb": 3, "vcpus_used": 4.0, "num_io_ops": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := (engine.HostUsage{FreeRAMMB: -512, FreeDiskMB: 3 * 1024, VCPUsUsed: 4, NumIOOps: 2}); u != want {
		t.Errorf("got %+v, want %+v", u, want)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"free_ram_mb": null, "free_disk_gb": 1, "vcpus_used": 0}`, "usage.free_ram_mb: want an integer, got null"},
		{`{"free_ram_mb": 1, "free_disk_gb": 1.5, "vcpus_used": 0}`, "usage.free_disk_gb: want an integer, got 1.5"},
		{`{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": -1}`, "usage.vcpus_used: want an integer >= 0, got -1"},
		{`{"free_ram_mb": 1, "free_disk_gb": 1073741825, "vcpus_used": 0}`, "usage.free_disk_gb: want an integer from -1073741824 to 1073741824, got 1073741825"},
		{`{"free_ram_mb": 1099511627777, "free_disk_gb": 1, "vcpus_used": 0}`, "usage.free_ram_mb: want an integer from"},
		{`{"free_ram_mb": 1, "free_disk_gb": 1}`, "usage.vcpus_used: required field is missing"},
		{`{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0, "vcpus": 2}`, "usage.vcpus: unknown field"},
		{`{"free_ram_mb": 1, "free_ram_mb": 2, "free_disk_gb": 1, "vcpus_used": 0}`, `duplicate key "free_ram_mb"`},
		{`{"free_ram_mb": 1, "free_disk_gb": 1, "vcpus_used": 0}}`, "not valid JSON: extra data after the document"},
		{`null`, "usage: want an object, got null"},
	} {
		_, err := DecodeUsage(strings.NewReader(tc.body))
		var ve *engine.ValidationError
		if !errors.As(err, &ve) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want a *engine.ValidationError starting %q", tc.body, err, tc.want)
		}
	}
}

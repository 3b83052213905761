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

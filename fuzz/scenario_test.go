package fuzz

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
	"github.com/placer/placer/internal/synth"
)

// FuzzScenarioDecode feeds arbitrary bytes to scenario.Decode: it never
// panics; an error is a one-line *engine.ValidationError naming a field
// path, or a document-level one (not JSON, not an object, NaN); a decoded
// scenario re-encodes (scenario.EncodeScenario) and decodes to the same
// value.
func FuzzScenarioDecode(f *testing.F) {
	for _, seed := range []string{
		`{"request": {"flavor": {"memory_mb": 512, "vcpus": 1, "root_gb": 1}}}`,
		`{"format": 1, "hosts": [{"host": "h1", "memory_mb": 1024, "free_ram_mb": -5, "vcpus": 2, "local_gb": 10, "free_disk_gb": 10}], "request": {"flavor": {"memory_mb": 512}}}`,
		`{"format": 1, "config": {"filters": ["RamFilter", "JsonFilter"]}, "request": {"flavor": {}, "scheduler_hints": {"query": "[\"and\"]"}}}`,
		`{"request": {"flavor": {}}, "request": {}}`,
		`[1, 2`,
	} {
		f.Add([]byte(seed))
	}
	for seed := uint64(1); seed <= 3; seed++ {
		cloud, req := synth.Scenario(synth.Options{Seed: seed, Profile: synth.Edge, Hosts: 3, Instances: 2})
		var b bytes.Buffer
		if err := scenario.EncodeScenario(&b, &scenario.Scenario{Cloud: cloud, Request: req}); err == nil {
			f.Add(b.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenario.Decode(bytes.NewReader(data))
		if err != nil {
			checkDecodeError(t, err)
			return
		}
		var b bytes.Buffer
		if err := scenario.EncodeScenario(&b, s); err != nil {
			t.Fatalf("a decoded scenario does not encode: %v", err)
		}
		again, err := scenario.Decode(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("the re-encoded scenario does not decode: %v\n%s", err, b.Bytes())
		}
		if !reflect.DeepEqual(s, again) {
			t.Fatalf("decode(encode(s)) != s:\n first %#v\nsecond %#v\nencoded:\n%s", s, again, b.Bytes())
		}
	})
}

// checkDecodeError is the contract of Decode's errors.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	var ve *engine.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %T %v is not a *engine.ValidationError", err, err)
	}
	if strings.Contains(err.Error(), "\n") || ve.Msg == "" {
		t.Fatalf("error %q: want one non-empty line", err.Error())
	}
	if ve.Field != "" {
		return
	}
	// Document-level errors, worded as the oracle's parser words them:
	// syntax, NaN/Infinity (json.loads' parse_constant knows no path), a
	// duplicate key of the top-level object, a root that is not an object,
	// an unknown top-level key "" (whose path is "").
	for _, doc := range []string{"not valid JSON", "want an object", "unknown field", "cannot read", "duplicate key "} {
		if strings.HasPrefix(ve.Msg, doc) {
			return
		}
	}
	if strings.HasSuffix(ve.Msg, " is not a JSON number") {
		return
	}
	t.Fatalf("error %q names no field and is not about the document", err.Error())
}

package scenario

import (
	"strings"
	"testing"
)

// obj builds a JSON object text from base key/value pairs (values are JSON
// texts) and overrides: an override replaces the base value of its key, or
// is appended; the value "-" removes the key.
func obj(base []string, overrides ...string) string {
	keys := []string{}
	vals := map[string]string{}
	set := func(kv []string) {
		for i := 0; i+1 < len(kv); i += 2 {
			k, v := kv[i], kv[i+1]
			if _, ok := vals[k]; !ok {
				keys = append(keys, k)
			}
			vals[k] = v
		}
	}
	set(base)
	set(overrides)
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, k := range keys {
		if vals[k] == "-" {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(pyQuote(k) + ": " + vals[k])
	}
	b.WriteByte('}')
	return b.String()
}

var baseHost = []string{
	"host", `"h1"`, "memory_mb", "1024", "free_ram_mb", "1024", "vcpus", "4",
	"vcpus_used", "0", "local_gb", "10", "free_disk_gb", "10",
}

// host is a valid host object with overrides.
func host(overrides ...string) string { return obj(baseHost, overrides...) }

var baseRequest = []string{"flavor", `{"memory_mb": 512, "vcpus": 1}`}

// request is a valid request object with overrides.
func request(overrides ...string) string { return obj(baseRequest, overrides...) }

// doc is a valid scenario with one host and overrides of its top-level
// fields.
func doc(overrides ...string) string {
	return obj([]string{"hosts", "[" + host() + "]", "request", request()}, overrides...)
}

// hostsDoc is a scenario with the given hosts.
func hostsDoc(hosts ...string) string {
	return doc("hosts", "["+strings.Join(hosts, ", ")+"]")
}

func mustDecode(t *testing.T, text string) *Scenario {
	t.Helper()
	s, err := Decode(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, text)
	}
	return s
}

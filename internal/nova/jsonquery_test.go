package nova

import (
	"errors"
	"strings"
	"testing"
)

// jsonHost mirrors the HostState the JsonFilter cases ran against in
// Nova 26 (metrics an empty MonitorMetricList, as a compute node gives).
func jsonHost() *HostAttrs {
	return &HostAttrs{
		Host: "h1", Nodename: "n1", CellUUID: "c",
		FreeRAMMB: 1024, FreeDiskMB: 204800, VCPUsTotal: 16, VCPUsUsed: 4,
		Stats:              map[string]string{"opt1": "1", "num_instances": "3"},
		CPUInfo:            strPtr(`{"vendor": "Intel"}`),
		HypervisorType:     strPtr("QEMU"),
		HypervisorVersion:  intPtr(6002000),
		HostIP:             strPtr("10.0.0.5"),
		SupportedInstances: [][3]string{{"x86_64", "kvm", "hvm"}},
		RAMAllocationRatio: 1.5,
	}
}

// TestJSONQuery: NOVA-SEMANTICS.md §5 JsonFilter cases plus queries whose
// result (or exception) came from running Nova 26's JsonFilter.host_passes
// on the same host.
func TestJSONQuery(t *testing.T) {
	cases := []struct {
		query string
		want  string // "True", "False" or the Python exception
	}{
		{`["and", [">=", "$free_ram_mb", 1024], [">=", "$free_disk_mb", 204800]]`, "True"},
		{`["not", true, false, true, false]`, "True"},
		{`[">", 1]`, "False"},
		{`["=", "$........", 1, 1]`, "True"},
		{`["not", true]`, "False"},
		{`["not"]`, "False"},
		{`[]`, "True"},
		{`{}`, "True"},
		{`""`, "True"},
		{`0`, "True"},
		{`"abc"`, "KeyError"},
		{`"<ab"`, "True"},
		{`"="`, "False"},
		{`{"a": 1}`, "KeyError"},
		{`5`, "TypeError"},
		{`["foo", 1]`, "KeyError"},
		{`[["="], 1]`, "TypeError"},
		{`[1, 2]`, "KeyError"},
		{`[null, 1]`, "KeyError"},
		{`["=", 1, 1.0, true]`, "True"},
		{`["<", 1, 2, 3]`, "True"},
		{`["<", 1, 2, 0]`, "False"},
		{`["<", "a", "b"]`, "True"},
		{`["<", "a", 1]`, "TypeError"},
		{`["=", "a", 1]`, "False"},
		{`["in", 1, 2, 1.0]`, "True"},
		{`["in", "$free_ram_mb", 1024]`, "True"},
		{`["in", NaN, NaN]`, "True"},
		{`["=", NaN, NaN]`, "False"},
		{`["<", "$stats.opt1", "2"]`, "True"},
		{`[">=", "$stats.num_instances", 3]`, "TypeError"},
		{`["=", "$stats.num_instances", "3"]`, "True"},
		{`["=", "$stats.nothing", 1]`, "False"},
		{`["=", "$nothing", 1, 2]`, "False"},
		{`["=", "$cpu_info.vendor", "Intel"]`, "AttributeError"},
		{`["=", "$host_ip", "10.0.0.5"]`, "False"},
		{`["<", "$host_ip", "10.0.0.6"]`, "TypeError"},
		{`["=", "$hypervisor_type", "QEMU"]`, "True"},
		{`[">", "$hypervisor_version", 6000000.5]`, "True"},
		{`["=", "$supported_instances", 1]`, "False"},
		{`["<", "$supported_instances", 1]`, "TypeError"},
		{`["or", ["=", 1, 2], ["not", false]]`, "True"},
		{`["and", ["not", false, false]]`, "True"},
		{`["and", ["not", true], true]`, "True"},
		{`["=", ["not", true], ["not", true]]`, "True"},
		{`["<", ["not", true], ["not", false]]`, "True"},
		{`["and", [], 1]`, "True"},
		{`["=", {"a": 1}, {"a": 1.0}]`, "True"},
		{`["<", {"a": 1}, {"a": 1}]`, "TypeError"},
		{`["=", "", 1, 1]`, "True"},
		{`["=", "$", 1, 1]`, "True"},
		{`[">", "$ram_allocation_ratio", 1]`, "True"},
		{`["and", "$instances"]`, "False"},
		{`["and", "$stats"]`, "True"},
		{`["or", "$limits"]`, "False"},
		{`["=", "$update", "$update"]`, "True"},
		{`["<", "$update", 1]`, "TypeError"},
		{`["=", 9007199254740993, 9007199254740992.0]`, "False"},
		{`["<", 1e400, 1]`, "False"},
		{`[">", 1e400, 99999999999999999999999999]`, "True"},
		{`["and", ["=", 1, 1], ["foo"]]`, "KeyError"},
		{`["=", true, 1]`, "True"},
		{`["<", false, true]`, "True"},
		{`["=", "$free_ram_mb", 1024, 1024.0]`, "True"},
		{`["in", "$hypervisor_type", "QEMU", "KVM"]`, "True"},
		{`["and", 0]`, "False"},
		{`["or", 0.0, ""]`, "False"},
		{`["or", "x"]`, "True"},
		{`["=", "$limits.x", 1, 1]`, "True"},
		{`["<", [">", 1], 1]`, "True"},
		{`["<", "$free_ram_mb", "2000"]`, "TypeError"},
		{`["=", "$metrics.x", 1]`, "AttributeError"},
		{`["or", "$metrics"]`, "False"},
	}
	for _, tc := range cases {
		t.Run(tc.query, func(t *testing.T) {
			q := ParseQuery(tc.query)
			got, err := q.Eval(jsonHost())
			if tc.want != "True" && tc.want != "False" {
				var pe *ErrPython
				if !errors.As(err, &pe) || pe.Exception != tc.want {
					t.Fatalf("Eval(%s) = %v, %v; want %s", tc.query, got, err, tc.want)
				}
				return
			}
			if err != nil || got != (tc.want == "True") {
				t.Fatalf("Eval(%s) = %v, %v; want %s", tc.query, got, err, tc.want)
			}
		})
	}
}

func TestJSONQueryHostValues(t *testing.T) {
	q := ParseQuery(`["and", [">=", "$free_ram_mb", 1024], [">=", "$free_disk_mb", 204800]]`)
	cases := []struct {
		name      string
		ram, disk int64
		want      bool
	}{
		{"both enough", 1024, 204800, true},
		{"ram short", 1023, 204800, false},
		{"disk short", 1024, 204799, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := jsonHost()
			h.FreeRAMMB, h.FreeDiskMB = tc.ram, tc.disk
			if got, err := q.Eval(h); err != nil || got != tc.want {
				t.Fatalf("Eval = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestParseQueryEdges(t *testing.T) {
	deep := strings.Repeat("[", maxJSONDepth+2) + strings.Repeat("]", maxJSONDepth+2)
	cases := []struct {
		name, text string
		nilQuery   bool
		raises     string // what Eval raises at every host
	}{
		{"empty hint passes", "", true, ""},
		{"not JSON", "[1,", false, "JSONDecodeError"},
		{"extra data", `["=", 1, 1] x`, false, "JSONDecodeError"},
		{"nested past the limit", deep, false, "RecursionError"},
		{"valid", `["=", 1, 1]`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := ParseQuery(tc.text)
			if (q == nil) != tc.nilQuery {
				t.Fatalf("ParseQuery(%q) = %v", tc.text, q)
			}
			ok, err := q.Eval(jsonHost())
			var pe *ErrPython
			switch {
			case tc.raises == "" && (err != nil || !ok):
				t.Errorf("Eval = %v, %v; want true", ok, err)
			case tc.raises != "" && (!errors.As(err, &pe) || pe.Exception != tc.raises || ok):
				t.Errorf("Eval = %v, %v; want a %s", ok, err, tc.raises)
			}
			if _, compiled := q.Compile(); tc.raises != "" && compiled {
				t.Error("a query that raises compiled")
			}
		})
	}
}

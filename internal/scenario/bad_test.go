package scenario

import (
	"errors"
	"strings"
	"testing"

	"github.com/placer/placer/engine"
)

// badCase is a scenario the decoder must refuse with exactly want.
// differs marks messages that deliberately differ from the oracle's (it
// has no field path for a duplicate key, Python's own syntax messages...);
// the others are also checked against the oracle's parser when it is
// available (TestMessagesMatchOracle).
type badCase struct {
	name    string
	text    string
	want    string
	differs bool
}

var long = strings.Repeat("x", 80)

var badCases = []badCase{
	// JSON itself.
	{"not an object", `[1]`, "want an object, got [1]", false},
	{"empty input", ``, "not valid JSON: the input is empty", true},
	{"syntax", `{"request": }`, "not valid JSON: invalid character '}' looking for beginning of value (line 1 column 13)", true},
	{"truncated", `{"request": {`, "not valid JSON: unexpected end of input (line 1 column 14)", true},
	{"extra data", doc() + ` {}`, "not valid JSON: extra data after the document (line 1 column 189)", true},
	{"NaN", doc("request", request("flavor", `{"memory_mb": NaN}`)), "request.flavor.memory_mb: NaN is not a JSON number", true},
	{"Infinity", doc("config", `{"seed": Infinity}`), "config.seed: Infinity is not a JSON number", true},
	{"-Infinity", doc("config", `{"seed": -Infinity}`), "config.seed: -Infinity is not a JSON number", true},
	{"duplicate top-level key", `{"request": {"flavor": {}}, "request": {"flavor": {}}}`,
		`duplicate key "request" in one JSON object`, false},
	{"duplicate nested key", doc("request", `{"flavor": {"vcpus": 1, "vcpus": 2}}`),
		`request.flavor: duplicate key "vcpus" in one JSON object`, true},
	{"duplicate key in a list element", `{"hosts": [{}, {"a": 1, "a": 1}], "request": {"flavor": {}}}`,
		`hosts[1]: duplicate key "a" in one JSON object`, true},
	{"inner duplicate reported first", `{"a": 1, "a": 2, "b": {"c": 1, "c": 1}}`,
		`b: duplicate key "c" in one JSON object`, true},
	{"syntax error before a duplicate closes", `{"a": 1, "a": 2, "b": [}`,
		"not valid JSON: invalid character '}' looking for beginning of value (line 1 column 24)", true},

	// Top level.
	{"unknown top-level field", doc("foo", "1"), "foo: unknown field", false},
	{"unknown top-level field, not an identifier", doc("a b", "1"), "a b: unknown field", false},
	{"unknown field before a type error", `{"format": "x", "zzz": 1}`, "zzz: unknown field", false},
	{"format", doc("format", "2"), "format: want 1, got 2", false},
	{"format type", doc("format", `"1"`), `format: want an integer, got "1"`, false},
	{"format value checked after the records", doc("format", "2", "hosts", "["+host("vcpus", "-")+"]"),
		"hosts[0].vcpus: required field is missing", false},
	{"request missing", doc("request", "-"), "request: required field is missing", false},
	{"hosts before request", doc("hosts", "5", "request", "5"), "hosts: want a list, got 5", false},

	// config.
	{"config null", doc("config", "null"), "config: want an object, got null", false},
	{"config unknown field", doc("config", `{"foo": 1}`), "config.foo: unknown field", false},
	{"config unknown field, not an identifier", doc("config", `{"a:b": 1}`), `config["a:b"]: unknown field`, false},
	{"unknown filter", doc("config", `{"filters": ["RamFilter", "FooFilter"]}`),
		`config.filters[1]: unknown filter "FooFilter"`, false},
	{"duplicate filter", doc("config", `{"filters": ["RamFilter", "RamFilter"]}`),
		`config.filters[1]: duplicate filter "RamFilter"`, false},
	{"filter not a string", doc("config", `{"filters": ["Nope", 1]}`), "config.filters[1]: want a string, got 1", false},
	{"filters not a list", doc("config", `{"filters": "RamFilter"}`), `config.filters: want a list, got "RamFilter"`, false},
	{"unknown weigher", doc("config", `{"weighers": ["RamWeigher"]}`), `config.weighers[0]: unknown weigher "RamWeigher"`, false},
	{"multiplier not a number", doc("config", `{"ram_weight_multiplier": "x"}`),
		`config.ram_weight_multiplier: want a number, got "x"`, false},
	{"multiplier bool", doc("config", `{"cpu_weight_multiplier": true}`),
		"config.cpu_weight_multiplier: want a number, got true", false},
	{"multiplier infinite", doc("config", `{"disk_weight_multiplier": 1e400}`),
		"config.disk_weight_multiplier: want a finite number, got inf", false},
	{"multiplier -infinite", doc("config", `{"disk_weight_multiplier": -1e400}`),
		"config.disk_weight_multiplier: want a finite number, got -inf", false},
	{"host_subset_size 0", doc("config", `{"host_subset_size": 0}`), "config.host_subset_size: want an integer >= 1, got 0", false},
	{"host_subset_size -2.0", doc("config", `{"host_subset_size": -2.0}`), "config.host_subset_size: want an integer >= 1, got -2", false},
	{"host_subset_size fraction", doc("config", `{"host_subset_size": 1.5}`), "config.host_subset_size: want an integer, got 1.5", false},
	{"max_attempts null", doc("config", `{"max_attempts": null}`), "config.max_attempts: want an integer, got null", false},
	{"seed infinite", doc("config", `{"seed": 1e400}`), "config.seed: want an integer, got Infinity", false},
	{"seed huge", doc("config", `{"seed": 100000000000000000000}`),
		"config.seed: want an integer that fits in 64 bits, got 100000000000000000000", true},
	{"max_io_ops_per_host negative", doc("config", `{"max_io_ops_per_host": -1}`),
		"config.max_io_ops_per_host: want an integer >= 0, got -1", false},
	{"max_instances_per_host huge negative", doc("config", `{"max_instances_per_host": -100000000000000000000}`),
		"config.max_instances_per_host: want an integer >= 0, got -100000000000000000000", false},
	{"allocation ratio negative", doc("config", `{"cpu_allocation_ratio": -1.5}`),
		"config.cpu_allocation_ratio: want a number >= 0, got -1.5", false},
	{"default AZ empty", doc("config", `{"default_availability_zone": ""}`),
		"config.default_availability_zone: want a non-empty string", false},
	{"metrics_required not bool", doc("config", `{"metrics_required": "yes"}`),
		`config.metrics_required: want true or false, got "yes"`, false},
	{"weight setting not a pair", doc("config", `{"metrics_weight_setting": [["cpu.percent"]]}`),
		`config.metrics_weight_setting[0]: want [name, ratio], got ["cpu.percent"]`, false},
	{"weight setting not a list", doc("config", `{"metrics_weight_setting": {"a": 1}}`),
		`config.metrics_weight_setting: want a list, got {"a": 1}`, false},
	{"weight setting name with =", doc("config", `{"metrics_weight_setting": [["cpu.percent", 1], ["a=b", 1]]}`),
		`config.metrics_weight_setting[1][0]: a metric name cannot hold "=" or ","`, false},
	{"weight setting empty name", doc("config", `{"metrics_weight_setting": [["", 1]]}`),
		`config.metrics_weight_setting[0][0]: want a non-empty string`, false},
	{"weight setting ratio", doc("config", `{"metrics_weight_setting": [["cpu.percent", "1"]]}`),
		`config.metrics_weight_setting[0][1]: want a number, got "1"`, false},
	{"isolated_images not strings", doc("config", `{"isolated_images": [null]}`),
		"config.isolated_images[0]: want a string, got null", false},
	{"namespace not a string", doc("config", `{"aggregate_image_properties_isolation_namespace": 1}`),
		"config.aggregate_image_properties_isolation_namespace: want a string, got 1", false},
	{"separator null", doc("config", `{"aggregate_image_properties_isolation_separator": null}`),
		"config.aggregate_image_properties_isolation_separator: want a string, got null", false},

	// aggregates.
	{"aggregates not a list", doc("aggregates", "{}"), "aggregates: want a list, got {}", false},
	{"aggregate not an object", doc("aggregates", `["agg"]`), `aggregates[0]: want an object, got "agg"`, false},
	{"aggregate empty name", doc("aggregates", `[{"name": ""}]`), "aggregates[0].name: want a non-empty string", false},
	{"aggregate null name", doc("aggregates", `[{"name": null}]`), "aggregates[0].name: want a string, got null", false},
	{"aggregate unknown field", doc("aggregates", `[{"name": "a", "az": "x"}]`), "aggregates[0].az: unknown field", false},
	{"duplicate aggregate name", doc("aggregates", `[{"name": "a"}, {"name": "b"}, {"name": "a"}]`),
		`aggregates[2].name: duplicate aggregate name "a"`, false},
	{"default name taken", doc("aggregates", `[{}, {"name": "agg0"}]`),
		`aggregates[1].name: duplicate aggregate name "agg0"`, false},
	{"aggregate hosts not strings", doc("aggregates", `[{"hosts": ["h1", 2]}]`),
		"aggregates[0].hosts[1]: want a string, got 2", false},
	{"metadata value not a string", doc("aggregates", `[{"metadata": {"ssd": true}}]`),
		"aggregates[0].metadata.ssd: want a string, got true", false},
	{"metadata value a float", doc("aggregates", `[{"metadata": {"ram_allocation_ratio": 2.0}}]`),
		"aggregates[0].metadata.ram_allocation_ratio: want a string, got 2.0", false},
	{"metadata key with a colon", doc("aggregates", `[{"metadata": {"a:b": 1}}]`),
		`aggregates[0].metadata["a:b"]: want a string, got 1`, false},

	// hosts.
	{"host not an object", hostsDoc(`"h1"`), `hosts[0]: want an object, got "h1"`, false},
	{"host name missing", hostsDoc(host("host", "-")), "hosts[0].host: required field is missing", false},
	{"host name empty", hostsDoc(host("host", `""`)), "hosts[0].host: want a non-empty string", false},
	{"free_ram_mb not a number", hostsDoc(host(), host("host", `"h2"`, "free_ram_mb", `"12GB"`)),
		`hosts[1].free_ram_mb: want a number, got "12GB"`, false},
	{"memory_mb missing", hostsDoc(host("memory_mb", "-")), "hosts[0].memory_mb: required field is missing", false},
	{"memory_mb negative", hostsDoc(host("memory_mb", "-1")), "hosts[0].memory_mb: want a number >= 0, got -1", false},
	{"vcpus negative fraction", hostsDoc(host("vcpus", "-0.5")), "hosts[0].vcpus: want a number >= 0, got -0.5", false},
	{"local_gb null", hostsDoc(host("local_gb", "null")), "hosts[0].local_gb: want a number, got null", false},
	{"free_disk_gb infinite", hostsDoc(host("free_disk_gb", "1e999")), "hosts[0].free_disk_gb: want a finite number, got inf", false},
	{"vcpus_used beyond int64", hostsDoc(host("vcpus_used", "1e30")),
		"hosts[0].vcpus_used: want a number that fits a 64-bit integer, got 1e+30", true},
	{"disk_available_least string", hostsDoc(host("disk_available_least", `"1"`)),
		`hosts[0].disk_available_least: want a number, got "1"`, false},
	{"long value", hostsDoc(host("free_ram_mb", `"`+long+`"`)),
		`hosts[0].free_ram_mb: want a number, got "` + long[:56] + "...", false},
	{"non-ASCII value", hostsDoc(host("free_ram_mb", `"é😀"`)),
		`hosts[0].free_ram_mb: want a number, got "\u00e9\ud83d\ude00"`, false},
	{"node empty", hostsDoc(host("node", `""`)), "hosts[0].node: want a non-empty string", false},
	{"uuid empty", hostsDoc(host("uuid", `""`)), "hosts[0].uuid: want a non-empty string", false},
	{"cell null", hostsDoc(host("cell", "null")), "hosts[0].cell: want a string, got null", false},
	{"ratio negative", hostsDoc(host("ram_allocation_ratio", "-1")), "hosts[0].ram_allocation_ratio: want a number >= 0, got -1", false},
	{"num_instances fraction", hostsDoc(host("num_instances", "1.5")), "hosts[0].num_instances: want an integer, got 1.5", false},
	{"failed_builds negative", hostsDoc(host("failed_builds", "-1")), "hosts[0].failed_builds: want an integer >= 0, got -1", false},
	{"service null", hostsDoc(host("service", "null")), "hosts[0].service: want an object, got null", false},
	{"service up not bool", hostsDoc(host("service", `{"up": "no"}`)), `hosts[0].service.up: want true or false, got "no"`, false},
	{"service unknown field", hostsDoc(host("service", `{"forced_down": true}`)), "hosts[0].service.forced_down: unknown field", false},
	{"hypervisor_version negative", hostsDoc(host("hypervisor_version", "-1")),
		"hosts[0].hypervisor_version: want an integer >= 0, got -1", false},
	{"hypervisor_type not a string", hostsDoc(host("hypervisor_type", "1")), "hosts[0].hypervisor_type: want a string, got 1", false},
	{"supported_instances pair", hostsDoc(host("supported_instances", `[["x86_64", "kvm"]]`)),
		`hosts[0].supported_instances[0]: want [architecture, hv_type, vm_mode], got ["x86_64", "kvm"]`, false},
	{"supported_instances element", hostsDoc(host("supported_instances", `[["x86_64", "kvm", 1]]`)),
		"hosts[0].supported_instances[0][2]: want a string, got 1", false},
	{"cpu_info number", hostsDoc(host("cpu_info", "5")), "hosts[0].cpu_info: want a JSON object, got 5", false},
	{"cpu_info list", hostsDoc(host("cpu_info", `[1, 2]`)), "hosts[0].cpu_info: want a JSON object, got [1, 2]", false},
	{"stats value", hostsDoc(host("stats", `{"a": 1}`)), "hosts[0].stats.a: want a string, got 1", false},
	{"metrics value", hostsDoc(host("metrics", `{"cpu.percent": "x"}`)),
		`hosts[0].metrics["cpu.percent"]: want a number, got "x"`, false},
	{"metrics not an object", hostsDoc(host("metrics", `[]`)), "hosts[0].metrics: want an object, got []", false},
	{"instances not a list", hostsDoc(host("instances", `"abc"`)), `hosts[0].instances: want a list, got "abc"`, false},
	{"host unknown field", hostsDoc(host("free_ram", "1")), "hosts[0].free_ram: unknown field", false},
	{"unknown field before a missing one", hostsDoc(host("memory_mb", "-", "zz", "1")), "hosts[0].zz: unknown field", false},
	{"duplicate host", hostsDoc(host(), host("vcpus", "8")), `hosts[1]: duplicate host "h1" node "h1" (also hosts[0])`, false},
	{"duplicate host and explicit node", hostsDoc(host("node", `"n"`), host(), host("node", `"n"`)),
		`hosts[2]: duplicate host "h1" node "n" (also hosts[0])`, false},
	{"duplicate uuid", hostsDoc(host("uuid", `"u"`), host("host", `"h2"`, "uuid", `"u"`)),
		`hosts[1].uuid: duplicate uuid "u"`, false},
	{"explicit uuid equal to a made-up one", hostsDoc(host(), host("host", `"h2"`, "uuid", `"`+MadeUpUUID("host", "h1", "h1")+`"`)),
		`hosts[1].uuid: duplicate uuid "` + MadeUpUUID("host", "h1", "h1") + `"`, false},
	{"two services for one host", hostsDoc(host("node", `"n1"`), host("node", `"n2"`, "service", `{"disabled": true}`)),
		"hosts[1].service: differs from hosts[0].service of the same host; Nova has one compute service per host", false},

	// request.
	{"request not an object", doc("request", "[]"), "request: want an object, got []", false},
	{"flavor missing", doc("request", "{}"), "request.flavor: required field is missing", false},
	{"flavor memory fraction", doc("request", request("flavor", `{"memory_mb": 1.5}`)),
		"request.flavor.memory_mb: want an integer, got 1.5", false},
	{"flavor vcpus negative", doc("request", request("flavor", `{"vcpus": -1}`)),
		"request.flavor.vcpus: want an integer >= 0, got -1", false},
	{"flavor swap string", doc("request", request("flavor", `{"swap": "512"}`)),
		`request.flavor.swap: want an integer, got "512"`, false},
	{"flavor unknown field", doc("request", request("flavor", `{"foo": 1}`)), "request.flavor.foo: unknown field", false},
	{"flavor name null", doc("request", request("flavor", `{"name": null}`)), "request.flavor.name: want a string, got null", false},
	{"extra spec value", doc("request", request("flavor", `{"extra_specs": {"hw:cpu_policy": 1}}`)),
		`request.flavor.extra_specs["hw:cpu_policy"]: want a string, got 1`, false},
	{"unknown field first", doc("request", request("flavor", `{"memory_mb": "x", "foo": 1}`)),
		"request.flavor.foo: unknown field", false},
	{"num_instances huge", doc("request", request("num_instances", "1e12")),
		"request.num_instances: want an integer <= 1048576, got 1000000000000", true},
	{"num_instances 0", doc("request", request("num_instances", "0")), "request.num_instances: want an integer >= 1, got 0", false},
	{"too few uuids", doc("request", request("num_instances", "2", "instance_uuids", `["a"]`)),
		"request.instance_uuids: want 2 uuids (one per instance), got 1", false},
	{"uuids without num_instances", doc("request", request("instance_uuids", `["a", "b"]`)),
		"request.instance_uuids: want 1 uuids (one per instance), got 2", false},
	{"no uuids", doc("request", request("instance_uuids", `[]`)),
		"request.instance_uuids: want 1 uuids (one per instance), got 0", false},
	{"duplicate uuids", doc("request", request("num_instances", "2", "instance_uuids", `["a", "a"]`)),
		"request.instance_uuids: uuids are not unique", false},
	{"empty uuid", doc("request", request("instance_uuids", `[""]`)),
		"request.instance_uuids[0]: want a non-empty string", false},
	{"image property list", doc("request", request("image", `{"properties": {"a": [1]}}`)),
		"request.image.properties.a: want a string, number or boolean, got [1]", false},
	{"image property key", doc("request", request("image", `{"properties": {"hw:x": {}}}`)),
		`request.image.properties["hw:x"]: want a string, number or boolean, got {}`, false},
	{"image unknown field", doc("request", request("image", `{"name": "cirros"}`)), "request.image.name: unknown field", false},
	{"image id number", doc("request", request("image", `{"id": 1}`)), "request.image.id: want a string, got 1", false},
	{"project_id number", doc("request", request("project_id", "5")), "request.project_id: want a string, got 5", false},
	{"availability_zone list", doc("request", request("availability_zone", `["az1"]`)),
		`request.availability_zone: want a string, got ["az1"]`, false},
	{"group policy missing", doc("request", request("instance_group", `{}`)),
		"request.instance_group.policy: required field is missing", false},
	{"group policy unknown", doc("request", request("instance_group", `{"policy": "spread"}`)),
		`request.instance_group.policy: want one of affinity, anti-affinity, soft-affinity, soft-anti-affinity, got "spread"`, false},
	{"group policy checked after the uuids", doc("request", request("instance_group", `{"policy": "spread"}`, "instance_uuids", `["a", "b"]`)),
		"request.instance_uuids: want 1 uuids (one per instance), got 2", false},
	{"group rule 0", doc("request", request("instance_group", `{"policy": "anti-affinity", "rules": {"max_server_per_host": 0}}`)),
		"request.instance_group.rules.max_server_per_host: want an integer >= 1, got 0", false},
	{"group rule null", doc("request", request("instance_group", `{"policy": "anti-affinity", "rules": {"max_server_per_host": null}}`)),
		"request.instance_group.rules.max_server_per_host: want an integer, got null", false},
	{"group rules null", doc("request", request("instance_group", `{"policy": "anti-affinity", "rules": null}`)),
		"request.instance_group.rules: want an object, got null", false},
	{"group unknown rule", doc("request", request("instance_group", `{"policy": "affinity", "rules": {"max": 1}}`)),
		"request.instance_group.rules.max: unknown field", false},
	{"group uuid empty", doc("request", request("instance_group", `{"policy": "affinity", "uuid": ""}`)),
		"request.instance_group.uuid: want a non-empty string", false},
	{"group members", doc("request", request("instance_group", `{"policy": "affinity", "members": "x"}`)),
		`request.instance_group.members: want a list, got "x"`, false},
	{"destination without host", doc("request", request("requested_destination", `{}`)),
		"request.requested_destination.host: required field is missing", false},
	{"destination empty node", doc("request", request("requested_destination", `{"host": "h1", "node": ""}`)),
		"request.requested_destination.node: want a non-empty string", false},
	{"ignore_hosts string", doc("request", request("ignore_hosts", `"h1"`)), `request.ignore_hosts: want a list, got "h1"`, false},
	{"force_nodes element", doc("request", request("force_nodes", `[1]`)), "request.force_nodes[0]: want a string, got 1", false},
	{"unknown hint", doc("request", request("scheduler_hints", `{"group": "x"}`)),
		"request.scheduler_hints.group: unknown scheduler hint (known: same_host, different_host, query, build_near_host_ip, cidr)", false},
	{"hint value before hint name", doc("request", request("scheduler_hints", `{"group": "x", "same_host": 5}`)),
		"request.scheduler_hints.same_host: want a list, got 5", false},
	{"hint list element", doc("request", request("scheduler_hints", `{"different_host": ["a", 1]}`)),
		"request.scheduler_hints.different_host[1]: want a string, got 1", false},
	{"query two strings", doc("request", request("scheduler_hints", `{"query": ["a", "b"]}`)),
		"request.scheduler_hints.query: want one string", false},
	{"cidr no string", doc("request", request("scheduler_hints", `{"cidr": []}`)),
		"request.scheduler_hints.cidr: want one string", false},
	{"hints not an object", doc("request", request("scheduler_hints", `[]`)),
		"request.scheduler_hints: want an object, got []", false},
	{"retry pair", doc("request", request("retry", `{"hosts": [["h1"]]}`)), `request.retry.hosts[0]: want [host, node], got ["h1"]`, false},
	{"retry pair element", doc("request", request("retry", `{"hosts": [["h1", null]]}`)), "request.retry.hosts[0][1]: want a string, got null", false},
	{"retry attempts negative", doc("request", request("retry", `{"num_attempts": -1}`)),
		"request.retry.num_attempts: want an integer >= 0, got -1", false},
	{"request unknown field", doc("request", request("flavor_id", `"m1"`)), "request.flavor_id: unknown field", false},

	// placer's additions (issue 20): the oracle knows none of them, so it
	// refuses each with "unknown field".
	{"scheduler_driver unknown", doc("config", `{"scheduler_driver": "chance"}`),
		`config.scheduler_driver: want one of filter_scheduler, chance_scheduler, got "chance"`, true},
	{"scheduler_driver empty", doc("config", `{"scheduler_driver": ""}`),
		`config.scheduler_driver: want one of filter_scheduler, chance_scheduler, got ""`, true},
	{"scheduler_driver null", doc("config", `{"scheduler_driver": null}`),
		"config.scheduler_driver: want a string, got null", true},
	{"caching_scheduler is not a scenario driver", doc("config", `{"scheduler_driver": "caching_scheduler"}`),
		`config.scheduler_driver: want one of filter_scheduler, chance_scheduler, got "caching_scheduler"`, true},
	{"host_manager unknown", doc("config", `{"host_manager": "IronicHostManager"}`),
		`config.host_manager: want one of host_manager, ironic_host_manager, got "IronicHostManager"`, true},
	{"use_baremetal_filters string", doc("config", `{"use_baremetal_filters": "true"}`),
		`config.use_baremetal_filters: want true or false, got "true"`, true},
	{"baremetal_enabled_filters unknown", doc("config", `{"baremetal_enabled_filters": ["ExactRamFilter", "ExactFilter"]}`),
		`config.baremetal_enabled_filters[1]: unknown filter "ExactFilter"`, true},
	{"baremetal_enabled_filters duplicate", doc("config", `{"baremetal_enabled_filters": ["ExactRamFilter", "ExactRamFilter"]}`),
		`config.baremetal_enabled_filters[1]: duplicate filter "ExactRamFilter"`, true},
	{"baremetal_enabled_filters null", doc("config", `{"baremetal_enabled_filters": null}`),
		"config.baremetal_enabled_filters: want a list, got null", true},
}

func TestDecodeBadInput(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Decode(strings.NewReader(tc.text))
			if err == nil {
				t.Fatalf("Decode accepted it (%d hosts)\n%s", len(s.Cloud.Hosts), tc.text)
			}
			var ve *engine.ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalid) {
				t.Fatalf("error %T %v is not an *engine.ValidationError", err, err)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("error\n got: %s\nwant: %s\ndoc: %s", got, tc.want, tc.text)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err.Error())
			}
		})
	}
}

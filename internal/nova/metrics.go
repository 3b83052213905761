package nova

import (
	"fmt"
	"math"
	"sort"

	"github.com/placer/placer/internal/pyval"
)

// knownMetrics is fields.MonitorMetricType.ALL; the value says whether the
// metric is in FIELDS_REQUIRING_CONVERSION (a fraction stored x100).
var knownMetrics = map[string]bool{
	"cpu.frequency":      false,
	"cpu.user.time":      false,
	"cpu.kernel.time":    false,
	"cpu.idle.time":      false,
	"cpu.iowait.time":    false,
	"cpu.user.percent":   true,
	"cpu.kernel.percent": true,
	"cpu.idle.percent":   true,
	"cpu.iowait.percent": true,
	"cpu.percent":        true,
	"numa.membw.max":     false,
	"numa.membw.current": false,
}

// IsMetricName reports whether name is one of Nova's MonitorMetricType
// names.
func IsMetricName(name string) bool {
	_, ok := knownMetrics[name]
	return ok
}

// SchedulerMetrics turns a compute node's reported metrics into what the
// scheduler sees (MonitorMetricList.from_json): the cpu.*percent values
// x100, every value truncated to an integer. An error names a metric Nova
// does not know, or a value Nova's IntegerField refuses (NaN, infinite;
// also a value beyond the int64 range, which Python would keep).
func SchedulerMetrics(reported map[string]float64) (map[string]int64, error) {
	names := make([]string, 0, len(reported))
	for n := range reported {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]int64, len(reported))
	for _, name := range names {
		percent, ok := knownMetrics[name]
		if !ok {
			return nil, fmt.Errorf("metric %q: not a Nova MonitorMetricType", name)
		}
		v := reported[name]
		if percent {
			v = v * 100
		}
		t := math.Trunc(v)
		if math.IsNaN(v) || math.IsInf(v, 0) || t < -9.223372036854775808e18 || t >= 9.223372036854775808e18 {
			return nil, fmt.Errorf("metric %q: value %s is not an integer Nova can store", name, pyval.FloatRepr(v))
		}
		out[name] = int64(t)
	}
	return out, nil
}

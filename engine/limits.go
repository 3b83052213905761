package engine

// The bounds of the numbers a cloud or a request carries; Nova's Python
// integers have none. Within them no usage a batch or a commit makes
// wraps in int64: a claim is at most 2^42 MB (root and ephemeral disk),
// a request at most 2^20 instances, so a batch consumes at most 2^62 MB
// of a host; a limit (a total times a ratio) is at most 2^60, so the
// filters accept no usage past it and commits never pile past int64 (only
// forced placements, which skip the filters, could, over many requests of
// exabytes). Every total and free amount, and every sum of them, is an
// integer below 2^53, exact in float64 as Python's are in its floats, and
// no limit or weight overflows to an infinity, which no result document
// can carry. (Past them, int64 arithmetic wrapped: a 9 ZB flavor fitted a
// 1 TB host.)
const (
	// MaxMB bounds a size in MB (memory_mb, free_ram_mb, swap) and a
	// count (vCPUs, instances, io ops, failed builds), in absolute value:
	// 2^40 MB is an exbibyte.
	MaxMB = 1 << 40
	// MaxGB bounds a size in GB (local_gb, free_disk_gb,
	// disk_available_least, root_gb, ephemeral_gb), in absolute value.
	MaxGB = 1 << 30
	// MaxRatio bounds an allocation ratio, in absolute value.
	MaxRatio = 1 << 20
	// MaxFactor bounds a weigher multiplier, a metric's value and its
	// weight, in absolute value.
	MaxFactor = 1e100
)

// bounded refuses v outside [-bound, bound], naming the field prefix+name
// (built only then: the checks run on every request and host).
func bounded(prefix, name string, v, bound int64) error {
	if v < -bound || v > bound {
		return invalid(prefix+name, "want an integer from -%d to %d, got %d", bound, bound, v)
	}
	return nil
}

// MaxInstances bounds a request's NumInstances (and its InstanceUUIDs),
// so that one request cannot make the engine allocate without bound.
const MaxInstances = 1 << 20

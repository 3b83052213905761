package engine

// The bounds of the numbers a cloud or a request carries. Nova's Python
// integers have none; within these every integer sum and product the
// filters and weighers make (sizes in MB up to 2^50, in GB up to 2^40, so
// 2^50 MB, and their sums) is exact in int64 and converts exactly to
// float64, as Python's integers would, and no limit or weight overflows
// to an infinity, which no result document can carry. (Past them, int64
// arithmetic wrapped: a 9 ZB flavor fitted a 1 TB host.)
const (
	// MaxMB bounds a size in MB and a count (vCPUs, instances, io ops),
	// in absolute value.
	MaxMB = 1 << 50
	// MaxGB bounds a size in GB (local_gb, free_disk_gb, root_gb...), in
	// absolute value.
	MaxGB = 1 << 40
	// MaxFactor bounds an allocation ratio, a weigher multiplier, a
	// metric's value and its weight, in absolute value.
	MaxFactor = 1e100
)

// bounded refuses v outside [-bound, bound].
func bounded(field string, v, bound int64) error {
	if v < -bound || v > bound {
		return invalid(field, "want an integer from -%d to %d, got %d", bound, bound, v)
	}
	return nil
}

// MaxInstances bounds a request's NumInstances (and its InstanceUUIDs),
// so that one request cannot make the engine allocate without bound.
const MaxInstances = 1 << 20

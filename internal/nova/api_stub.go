package nova

// THIS FILE IS THE AGREED API OF PACKAGE nova. The helper that owns
// internal/nova replaces these stubs with real implementations (in files
// of its own, one concept per file) and deletes this file. Signatures may
// not change without telling the engine and reference owners.

// Object is a JSON object (or Python dict) that keeps its key order, as a
// Python dict decoded by json.loads does.
type Object struct {
	Keys   []string
	Values map[string]any
}

// HostAttrs is what a HostState exposes to ComputeCapabilitiesFilter and
// JsonFilter lookups (getattr(host_state, name)), filled by the caller from
// its own representation of one host at the moment of the lookup.
type HostAttrs struct {
	Host, Nodename, UUID, CellUUID string
	FreeRAMMB, FreeDiskMB          int64
	TotalUsableRAMMB               int64
	TotalUsableDiskGB              int64
	DiskMBUsed                     int64
	VCPUsTotal, VCPUsUsed          int64
	NumInstances, NumIOOps         int64
	FailedBuilds                   int64
	HypervisorType                 *string
	HypervisorVersion              *int64
	HypervisorHostname             *string
	CPUInfo                        *string // JSON text as Nova stores it
	SupportedInstances             [][3]string
	HostIP                         *string
	// Stats as HostState.stats holds them (including the num_instances,
	// io_workload and failed_builds counters Nova keeps there).
	Stats                                  map[string]string
	RAMAllocationRatio, CPUAllocationRatio float64
	DiskAllocationRatio                    float64
	// Metrics as HostState.metrics (already x100 / truncated, see
	// SchedulerMetrics).
	Metrics map[string]int64
	// Instances are the uuids on the host (HostState.instances keys).
	Instances []string
}

// AggregateMetadata is nova.scheduler.filters.utils.aggregate_metadata_get_by_host:
// key -> set of comma-split, stripped values over the host's aggregates
// (each value list sorted and de-duplicated).
type AggregateMetadata map[string][]string

// ImageRequest is what ImagePropertiesFilter and
// AggregateImagePropertiesIsolation read from an image, after Nova's
// ImageMeta.from_dict: legacy names mapped, values canonicalised/typed.
type ImageRequest struct {
	// Props are the typed ImageMetaProps fields that are set, by their
	// current names (hw_architecture, img_hv_type, hw_vm_mode,
	// img_hv_requested_version, os_distro, ...), as Python-like values.
	Props map[string]any
}

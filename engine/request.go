package engine

import "github.com/placer/placer/internal/nova"

// Request is one placement request: num_instances instances of one flavor,
// placed one after another. It mirrors a scenario's "request" object.
type Request struct {
	// NumInstances is how many instances to place (0 means 1, or
	// len(InstanceUUIDs) when those are given).
	NumInstances int
	// InstanceUUIDs has one uuid per instance; nil means inst-0, inst-1...
	InstanceUUIDs []string
	// Flavor is the instance type. Required.
	Flavor Flavor
	// Image is the boot image.
	Image Image
	// ProjectID and UserID own the instances; nil when unknown.
	ProjectID *string
	UserID    *string
	// AvailabilityZone is the requested AZ; nil means any.
	AvailabilityZone *string
	// InstanceGroup is the server group the instances join, if any.
	InstanceGroup *InstanceGroup
	// IgnoreHosts removes every node of these hosts (case-insensitive).
	IgnoreHosts []string
	// ForceHosts keeps only these hosts (case-insensitive) and skips every
	// filter.
	ForceHosts []string
	// ForceNodes keeps only these nodes (exact) and skips every filter.
	ForceNodes []string
	// RequestedDestination keeps only that host (and node); the filters
	// still run.
	RequestedDestination *Destination
	// SchedulerHints are the hints the catalogue's filters read.
	SchedulerHints Hints
	// Retry lists the (host, node) pairs already tried (RetryFilter).
	Retry *Retry
}

// Flavor is Nova's instance type.
type Flavor struct {
	Name        string
	MemoryMB    int64
	VCPUs       int64
	RootGB      int64
	EphemeralGB int64
	// Swap is in MB. DiskFilter counts it; consumption does not (Nova).
	Swap       int64
	ExtraSpecs map[string]string
	// ExtraSpecOrder is the order of ExtraSpecs' keys as the flavor lists
	// them (a scenario's JSON order), in which Nova's filters walk them:
	// it decides which of two specs speaks first on a host where one fails
	// and the other raises. Keys it does not list come after it, sorted;
	// listed names that are not keys, and repeats, are ignored. nil: all
	// sorted.
	ExtraSpecOrder []string
}

// SpecKeys returns the keys of f's extra specs in the order Nova walks
// them (ExtraSpecOrder).
func (f *Flavor) SpecKeys() []string { return nova.SpecKeys(f.ExtraSpecs, f.ExtraSpecOrder) }

// Image is the boot image: an id and Glance properties. Property values are
// string, int64 (integral JSON numbers), float64, bool or nil, as JSON gives
// them; Nova's legacy names (architecture, hypervisor_type, vm_mode...) are
// accepted.
type Image struct {
	ID         *string
	Properties map[string]any
}

// Server group policies.
const (
	PolicyAffinity         = "affinity"
	PolicyAntiAffinity     = "anti-affinity"
	PolicySoftAffinity     = "soft-affinity"
	PolicySoftAntiAffinity = "soft-anti-affinity"
)

// InstanceGroup is a server group. The request's own instance uuids are
// members too, whether or not Members lists them (Nova's API adds them).
type InstanceGroup struct {
	UUID   string
	Policy string
	// MaxServerPerHost is the anti-affinity rule; 0 means Nova's default 1.
	MaxServerPerHost int
	// Hosts are the host names the group's members already run on.
	Hosts []string
	// Members are the uuids of the group's instances.
	Members []string
}

// Destination is a requested (host, node); Node "" means any node of Host.
type Destination struct {
	Host string
	Node string
}

// HostNode names one compute node.
type HostNode struct {
	Host string
	Node string
}

// Retry is Nova's SchedulerRetries: the nodes already tried.
type Retry struct {
	NumAttempts int
	Hosts       []HostNode
}

// Hints are the scheduler hints the catalogue's filters read. Empty values
// mean "not given", as in Nova.
type Hints struct {
	// SameHost: instance uuids the new instances must share a host with.
	SameHost []string
	// DifferentHost: instance uuids the new instances must avoid.
	DifferentHost []string
	// Query is a JsonFilter query (a JSON text).
	Query string
	// BuildNearHostIP and CIDR drive SimpleCIDRAffinityFilter; CIDR ""
	// means "/24" (no cidr hint) unless EmptyCIDR is set.
	BuildNearHostIP string
	CIDR            string
	// EmptyCIDR is a cidr hint given as "" (CIDR ""): Nova appends the
	// hint to BuildNearHostIP as given, so the network is the address
	// alone, a /32 (/128). Read only when CIDR is "".
	EmptyCIDR bool
}

// AffinityCIDR is the cidr hint as SimpleCIDRAffinityFilter appends it to
// BuildNearHostIP: CIDR, or "/24" when none was given.
func (h *Hints) AffinityCIDR() string {
	if h.CIDR == "" && !h.EmptyCIDR {
		return nova.DefaultCIDR
	}
	return h.CIDR
}

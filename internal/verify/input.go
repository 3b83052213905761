package verify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/placer/placer/engine"
)

// Placed is one instance of a plan as its caller was told: its uuid and
// the (host, node) it was committed to.
type Placed struct {
	Instance string
	Host     engine.HostNode
}

// Request is one request a caller submitted and what it was answered.
type Request struct {
	// Flavor is the request's flavor: what each instance consumes.
	Flavor engine.Flavor
	// Forced is force_hosts or force_nodes: every filter was skipped, so
	// its instances may exceed limits (Nova's admin override), but only
	// on the hosts forced: ForceHosts (host names, compared lower-cased,
	// as Nova does) and ForceNodes (node names), each when given.
	Forced     bool
	ForceHosts []string
	ForceNodes []string
	// Instances are the request's instance uuids (to know the flavor of
	// an instance the store committed without telling the caller).
	Instances []string
	// IgnoreHosts, Destination and Group are the request's rules that
	// host names judge (BrokenRule).
	IgnoreHosts []string
	Destination *engine.Destination
	Group       *engine.InstanceGroup
	// Placed is the plan returned to the caller; nil when Place returned
	// an error (nothing of the request should then be committed).
	Placed []Placed
}

// FromPlace is the Request of a call Place(ctx, req) that returned plan,
// err: only what the caller sees.
func FromPlace(req engine.Request, plan engine.Plan, err error) Request {
	r := Request{Flavor: req.Flavor, Forced: len(req.ForceHosts) > 0 || len(req.ForceNodes) > 0,
		ForceHosts: req.ForceHosts, ForceNodes: req.ForceNodes, Instances: req.InstanceUUIDs,
		IgnoreHosts: req.IgnoreHosts, Destination: req.RequestedDestination, Group: req.InstanceGroup}
	if err == nil {
		r.Placed = make([]Placed, len(plan.Placements))
		for i, p := range plan.Placements {
			r.Placed[i] = Placed{Instance: p.InstanceUUID, Host: engine.HostNode{Host: p.Host, Node: p.Node}}
		}
	}
	return r
}

// forcedOn reports whether hn is among the hosts r forced: its host name
// in ForceHosts (lower-cased, as Nova's _match_forced_hosts compares) and
// its node in ForceNodes, each when given (Nova applies both).
func (r *Request) forcedOn(hn engine.HostNode) bool {
	if len(r.ForceHosts) > 0 && !slices.ContainsFunc(r.ForceHosts, func(h string) bool { return strings.ToLower(h) == strings.ToLower(hn.Host) }) {
		return false
	}
	return len(r.ForceNodes) == 0 || slices.Contains(r.ForceNodes, hn.Node)
}

// EventKind says what an Event is.
type EventKind uint8

// The external changes.
const (
	// Report is a compute node's usage report: Host's usage becomes Usage.
	Report EventKind = iota + 1
	// Delete releases Instance (RAM, disk, vCPUs and one instance; the
	// I/O count falls with the next report).
	Delete
	// AddHost adds NewHost.
	AddHost
	// RemoveHost removes Host and forgets the instances on it.
	RemoveHost
	// SetAggregate sets the keys Set and deletes the keys Del of
	// aggregate Aggregate's metadata (creating it without hosts).
	SetAggregate
)

func (k EventKind) String() string {
	switch k {
	case Report:
		return "usage report"
	case Delete:
		return "deletion"
	case AddHost:
		return "host addition"
	case RemoveHost:
		return "host removal"
	case SetAggregate:
		return "aggregate change"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is an external change as its caller made it, with the version the
// store answered (the change is in the snapshot of that version).
type Event struct {
	Version uint64
	Kind    EventKind
	Host    engine.HostNode  // Report, RemoveHost
	Usage   engine.HostUsage // Report (free_disk_mb in MB)
	// ReadVersion, for a Report made from what the store showed (Usage
	// as read, the report then sent), is the version of the snapshot
	// read: the verifier's account of the host at that version must be
	// Usage, num_io_ops aside (else a report would only ever copy the
	// store's usage into the account, right or wrong). 0: not checked.
	ReadVersion uint64
	Instance    string      // Delete
	NewHost     engine.Host // AddHost
	Aggregate   string      // SetAggregate
	Set         map[string]string
	Del         []string
}

// Commit is the store's record that it committed an instance: which one,
// where, and the version of the snapshot it was published in. Nothing
// else of the store's record is used.
type Commit struct {
	Version  uint64
	Instance string
	Host     engine.HostNode
}

// CommitsOf returns the Commits of a store's journal: its JournalPlace
// entries without their values (claims, forced flags).
func CommitsOf(journal []engine.JournalEntry) []Commit {
	var out []Commit
	for _, e := range journal {
		if e.Kind == engine.JournalPlace {
			out = append(out, Commit{Version: e.Version, Instance: e.InstanceUUID, Host: e.Host})
		}
	}
	return out
}

// Final is what the store holds at the end of the run.
type Final struct {
	// Usage is every host's usage.
	Usage map[engine.HostNode]engine.HostUsage
	// Instances is how many instances the store holds (committed through
	// it and not released or forgotten); negative: unknown.
	Instances int
}

// FinalOf reads a snapshot's usage and a store's instance count.
func FinalOf(snap *engine.Snapshot, instances int) Final {
	f := Final{Usage: make(map[engine.HostNode]engine.HostUsage, snap.Len()), Instances: instances}
	for id := range uint32(snap.Len()) {
		f.Usage[snap.HostNode(id)] = snap.Usage(id)
	}
	return f
}

// Input is a run to verify.
type Input struct {
	// Cloud is the cloud the store was built from.
	Cloud engine.Cloud
	// Requests are the requests callers submitted, with what they got.
	Requests []Request
	// Events are the external changes callers made (any order: they are
	// ordered by version).
	Events []Event
	// Commits are the instances the store committed.
	Commits []Commit
	// Final is the store's final state.
	Final Final
}

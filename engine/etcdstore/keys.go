package etcdstore

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/placer/placer/engine"
)

// DefaultPrefix is the key prefix when Options.Prefix is empty.
const DefaultPrefix = "/placer/"

// keys builds and parses the keys under one prefix.
type keys struct{ p string }

func newKeys(prefix string) keys {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return keys{prefix}
}

func esc(s string) string { return url.PathEscape(s) }

func (k keys) config() string               { return k.p + "config" }
func (k keys) aggregate(name string) string { return k.p + "aggregates/" + esc(name) }
func (k keys) host(h engine.HostNode) string {
	return k.p + "hosts/" + esc(h.Host) + "/" + esc(h.Node)
}
func (k keys) usage(h engine.HostNode) string {
	return k.p + "usage/" + esc(h.Host) + "/" + esc(h.Node)
}
func (k keys) inst(uuid string) string  { return k.p + "inst/" + esc(uuid) }
func (k keys) group(uuid string) string { return k.p + "groups/" + esc(uuid) }

// InstanceKey is the key of instance uuid's record under prefix ("" for
// DefaultPrefix): what a caller reads to learn a commit's outcome.
func InstanceKey(prefix, uuid string) string { return newKeys(prefix).inst(uuid) }

// HostKey is the key of a compute node's static record under prefix (""
// for DefaultPrefix): there from the node's addition to its removal.
func HostKey(prefix string, h engine.HostNode) string { return newKeys(prefix).host(h) }

// kind of a key, and the names it holds.
type keyKind int

const (
	kindOther keyKind = iota
	kindConfig
	kindAggregate
	kindHost
	kindUsage
	kindInst
	kindGroup
)

// parse returns what key is and its (unescaped) names.
func (k keys) parse(key string) (keyKind, []string) {
	rest, ok := strings.CutPrefix(key, k.p)
	if !ok {
		return kindOther, nil
	}
	if rest == "config" {
		return kindConfig, nil
	}
	parts := strings.Split(rest, "/")
	for i := range parts {
		if u, err := url.PathUnescape(parts[i]); err == nil {
			parts[i] = u
		}
	}
	switch {
	case parts[0] == "aggregates" && len(parts) == 2:
		return kindAggregate, parts[1:]
	case parts[0] == "hosts" && len(parts) == 3:
		return kindHost, parts[1:]
	case parts[0] == "usage" && len(parts) == 3:
		return kindUsage, parts[1:]
	case parts[0] == "inst" && len(parts) == 2:
		return kindInst, parts[1:]
	case parts[0] == "groups" && len(parts) == 2:
		return kindGroup, parts[1:]
	}
	return kindOther, nil
}

// hostRecord is the value of a hosts/ key.
type hostRecord struct {
	// Order sorts the hosts (then their keys): it gives the mirror's host
	// ids, so that every process numbers the hosts alike.
	Order int64       `json:"order"`
	Host  engine.Host `json:"host"`
}

// usageRecord is the value of a usage/ key.
type usageRecord struct {
	FreeRAMMB    int64 `json:"free_ram_mb"`
	FreeDiskMB   int64 `json:"free_disk_mb"`
	VCPUsUsed    int64 `json:"vcpus_used"`
	NumInstances int64 `json:"num_instances"`
	NumIOOps     int64 `json:"num_io_ops"`
}

func toRecord(u engine.HostUsage) usageRecord {
	return usageRecord{u.FreeRAMMB, u.FreeDiskMB, u.VCPUsUsed, u.NumInstances, u.NumIOOps}
}

func (r usageRecord) usage() engine.HostUsage {
	return engine.HostUsage{FreeRAMMB: r.FreeRAMMB, FreeDiskMB: r.FreeDiskMB, VCPUsUsed: r.VCPUsUsed, NumInstances: r.NumInstances, NumIOOps: r.NumIOOps}
}

// hostUsage is a host's usage as its record gives it (free disk in MB,
// capped by disk_available_least), as engine.NewSnapshot reads it.
func hostUsage(h *engine.Host) engine.HostUsage {
	free := h.FreeDiskGB
	if h.DiskAvailableLeast != nil {
		free = min(free, *h.DiskAvailableLeast)
	}
	return engine.HostUsage{FreeRAMMB: h.FreeRAMMB, FreeDiskMB: free * 1024, VCPUsUsed: h.VCPUsUsed, NumInstances: h.NumInstances, NumIOOps: h.NumIOOps}
}

// instRecord is the value of an inst/ key.
type instRecord struct {
	Host   string       `json:"host"`
	Node   string       `json:"node"`
	Claim  engine.Claim `json:"claim"`
	Group  string       `json:"group,omitempty"`
	Forced bool         `json:"forced,omitempty"`
	// Whole: the instance took its ironic node whole, Claim being what
	// it took (engine.Instance.Whole).
	Whole bool `json:"whole,omitempty"`
	// Txn is the committing transaction's nonce: the record is its.
	Txn string `json:"txn,omitempty"`
}

// groupRecord is the value of a groups/ key.
type groupRecord struct {
	Policy  string            `json:"policy"`
	Members map[string]string `json:"members"` // instance uuid -> host name
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("etcdstore: %v", err)) // only plain structs are encoded
	}
	return string(b)
}

// nodeOf is h's node name ("" means the host's).
func nodeOf(h *engine.Host) engine.HostNode {
	if h.Node == "" {
		return engine.HostNode{Host: h.Host, Node: h.Host}
	}
	return engine.HostNode{Host: h.Host, Node: h.Node}
}

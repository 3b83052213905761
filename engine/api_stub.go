package engine

import (
	"context"
	"errors"
)

// TEMPORARY: replaced by the real snapshot and PlaceBatch (engine owner).

// Snapshot is an immutable, versioned view of the cloud.
type Snapshot struct{ version uint64 }

// NewSnapshot validates a Cloud and builds its columnar state.
func NewSnapshot(c Cloud) (*Snapshot, error) { return nil, errors.New("not implemented") }

// Version is the snapshot's version.
func (s *Snapshot) Version() uint64 { return s.version }

// PlaceBatch places every instance of req against s.
func PlaceBatch(ctx context.Context, s *Snapshot, req Request) (Plan, error) {
	return Plan{}, errors.New("not implemented")
}

// ValidateCloud checks a Cloud and returns a *ValidationError naming the
// first bad field (scenario-style path: hosts[3].memory_mb, config.filters[2]).
func ValidateCloud(c *Cloud) error { return nil }

// PrepareRequest validates a request against a configuration and returns it
// with defaults filled in: NumInstances (len(InstanceUUIDs), else 1) and
// InstanceUUIDs (inst-0, inst-1, ...). Errors are *ValidationError with
// paths like request.flavor.vcpus.
func PrepareRequest(cfg *Config, r Request) (Request, error) { return r, nil }

package engine

// Hooks for the external tests (package engine_test), which can import
// internal/synth without an import cycle.

// SetBaseline switches PlaceBatch to the literal per-instance rescoring.
func SetBaseline(on bool) { useBaseline = on }

// SetTreeThresholds sets when a batch builds its k-d tree and returns a
// function restoring the previous thresholds.
func SetTreeThresholds(hosts, instances int) (restore func()) {
	h, i := treeMinHosts, treeMinInstances
	treeMinHosts, treeMinInstances = hosts, instances
	return func() { treeMinHosts, treeMinInstances = h, i }
}

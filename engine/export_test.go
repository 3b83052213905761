package engine

// Hooks for the external tests (package engine_test), which can import
// internal/synth without an import cycle.

// SetBaseline switches PlaceBatch to the literal per-instance rescoring.
func SetBaseline(on bool) { useBaseline = on }

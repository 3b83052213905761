package engine

// Hooks for the external tests (package engine_test), which can import
// internal/synth without an import cycle.

// SetBaseline switches PlaceBatch to the literal per-instance rescoring.
func SetBaseline(on bool) { useBaseline = on }

// SetDenseRanker allows (on) or forbids the dense ranker.
func SetDenseRanker(on bool) { useDenseRanker = on }

// CountDenseRanker makes *n count the batches ranked by the dense ranker
// (nil: stop counting). Not safe for concurrent batches.
func CountDenseRanker(n *int) {
	if n == nil {
		onDenseRanker = nil
		return
	}
	onDenseRanker = func() { *n++ }
}

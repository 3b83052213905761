// Package plandiff compares the outcome of two placement implementations
// (the engine and internal/reference, normally) decision for decision:
// placements, weights (bit for bit), candidates, limits (bit for bit),
// alternates,
// and for an error its kind, the failing instance, the per-filter counts
// and the tentative placements before it. The differential test of the
// engine and the fuzz targets of fuzz/ share it.
package plandiff

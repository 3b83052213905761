// Package bitmap holds host sets for the placement engine.
//
// Hosts have dense uint32 ids. Two representations are used:
//
//   - Set, a dense word bitmap over [0, n): the candidate set of a placement,
//     updated bit by bit on the hot path, cut into shards of ShardSize hosts
//     (ShardWords words) that filter passes process in parallel;
//   - Index, an inverted index from a categorical value (an availability
//     zone, an aggregate, a host name...) to a roaring bitmap of hosts,
//     built once per snapshot and turned into a Set by AND/OR passes.
//
// Nothing here allocates per host on a hot path.
package bitmap

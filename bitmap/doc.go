// Package bitmap holds host sets for the placement engine.
//
// Hosts have dense uint32 ids. Two representations are used:
//
//   - Set, a dense word bitmap over [0, n): the candidate set of a placement,
//     updated bit by bit on the hot path, cut into shards of ShardSize hosts
//     (ShardWords words) that filter passes process in parallel;
//   - roaring bitmaps, for the inverted indexes of categorical attributes
//     (the hosts of an aggregate class, of a hypervisor signature), built
//     once per snapshot and folded into a Set by OrInto and friends.
//
// ForShards runs a function over the shards of a set, in parallel on a
// process-wide pool of helper goroutines that poll briefly between passes
// rather than park (parallel.go says why); Sequential keeps a caller's
// passes on its own goroutine.
//
// Nothing here allocates per host on a hot path.
package bitmap

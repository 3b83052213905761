// Package soak runs a bounded load of concurrent clients against the
// placement API of "placer serve" (internal/server) for a fixed time, then
// verifies the service through the API as placer simulate verifies a run:
//
//   - no overcommit: every host's usage (GET /v1/hosts/{host}) is within
//     its limits (internal/verify's own account of the cloud when the soak
//     knows it, else the limits the server reports); on the hosts no
//     client reported usage for, the usage is exactly the initial one
//     minus the flavors of the instances the clients hold there;
//   - no lost instance: every instance placed (a 200 answer) and neither
//     deleted nor on a removed host is still held (its DELETE answers
//     200), and the server holds no instance the clients do not know of
//     (GET /v1/stats); the instances of a client that hung up are probed;
//   - anti-affinity groups have at most one live member per host;
//   - every answer has a status the API documents for what was asked (a
//     bad body 400, an oversized one 413...), never a 5xx but 503;
//   - the server's goroutines and heap are back to where they were after
//     a warm-up, within a slack (Options.GoroutineSlack, HeapSlack).
//
// The clients place (with server-made uuids, some with an anti-affinity
// group, some partial), delete, report usage, read, add and remove hosts,
// send bad and oversized bodies, and hang up: in the middle of sending a
// body, or while waiting for the answer.
package soak

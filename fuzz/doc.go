// Package fuzz holds placer's native fuzz targets (go test -fuzz); the
// package itself is empty, the targets are in its _test.go files:
//
//   - FuzzFilters: every filter of the catalogue alone, engine.FilterHosts
//     against reference.FilterHosts (pass set, counts, errors);
//   - FuzzWeighers: every weigher alone and the configured list,
//     engine.WeighHosts against reference.WeighHosts (weights bit for
//     bit, ranking);
//   - FuzzPlaceBatch: whole batches, engine.PlaceBatch against
//     reference.PlaceBatch (internal/plandiff);
//   - FuzzPlaceBatchScaled: FuzzPlaceBatch on clouds of 500 to 6,100
//     hosts made by copying the generated ones, for the engine's blocks
//     and shards;
//   - FuzzScenarioDecode: arbitrary bytes into scenario.Decode;
//   - FuzzExtraSpecs and FuzzJSONQuery: nova.MatchErr and JsonFilter's
//     evaluator against small models and algebraic properties;
//   - FuzzCommit: a sequence of commits, stale plans, usage reports,
//     removals and deletions on an engine.Store against a model of the
//     usage each accepted step makes;
//   - FuzzStore: a sequence of commits, deletions, usage reports, hosts
//     added and removed and aggregate changes on an engine.Store, each
//     request placed on its newest snapshot against reference.PlaceBatch
//     on the cloud its state describes (plandiff.World).
//
// github.com/google/gofuzz turns the fuzzer's bytes into clouds, requests,
// extra specs and queries (fuzz.NewFromGoFuzz plus the fill functions of
// gen_test.go), keeping values where the filters decide: at capacity
// limits, ratios around 1, negative free RAM, empty and duplicate names,
// every extra-spec operator, every JsonFilter command.
//
// Run one target with
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzFilters$' -fuzztime 60s -parallel 1
//
// and all of them with `make fuzz FUZZTIME=60s`. A failing input is written
// to testdata/fuzz/<Target>/; keep it there (commit it) and it runs as a
// regression case with every `go test ./fuzz`.
package fuzz

// Package synth generates synthetic clouds and placement requests, seeded
// and deterministic, as engine types: for benchmarks (tens of thousands of
// hosts, fast), for the differential tests and fuzzers, and for `placer
// gen` and `placer simulate`.
//
//	g := synth.New(synth.Options{Hosts: 20000, Seed: 1, Profile: synth.Rich})
//	cloud := g.Cloud()
//	for _, req := range g.Requests(100) { ... }
//
// Three profiles:
//
//   - basic and rich port the model of nova-oracle's `oracle gen`
//     (../shared/nova-oracle/novaoracle/gen.py): four hardware
//     generations, racks of 40 hosts with their /24, cells of racks, three
//     AZ aggregates, existing instances up to a load level (heavy hosts
//     overcommit RAM), disabled and down services, thin disks, per-host
//     ratios, CPU metrics, aggregates with metadata; requests with a flavor
//     mix, extra specs, images, AZs, server groups, hints, ignore/force
//     hosts, destinations and retries. basic keeps Nova's default
//     configuration; rich enables the whole filter catalogue in a shuffled
//     order, every weigher with varied multipliers and varied options.
//   - edge makes small adversarial clouds (1 to 40 hosts) for differential
//     testing: resource values at and past their limits, identical hosts,
//     several nodes per host, names that differ only in case, aggregate
//     metadata Nova cannot parse, random filter and weigher subsets, every
//     server group policy, JsonFilter queries of every command, and so on.
//
// Every generated cloud passes engine.ValidateCloud and every request
// engine.PrepareRequest: the profiles probe semantics, not validation.
//
// Randomness comes from math/rand/v2's PCG seeded with Options.Seed; the
// output is not byte-identical to gen.py's (another generator), only the
// model is the same.
package synth

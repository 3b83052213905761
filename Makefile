# placer: see README.md. Every target is a thin wrapper; the commands are
# usable on their own.

GO       ?= go
FUZZTIME ?= 10s
IMPL     ?= engine
BIN      ?= bin

.PHONY: all build test race bench fuzz conformance plots pgo clean

all: build test

## build: compile every package and the placer command into $(BIN)/placer
build:
	$(GO) build ./...
	$(GO) build -o $(BIN)/placer ./cmd/placer

## test: the README's test command (CI runs the same)
test:
	$(GO) vet ./... && $(GO) test ./...

## race: the tests under the race detector
race:
	$(GO) test -race ./...

## bench: the headline benchmarks (engine vs reference side by side, filter
## pass at GOMAXPROCS 1 and 2, snapshot memory) as a table; BENCHTIME to
## size it. The whole matrix: go test ./bench -run '^$$' -bench .
bench:
	scripts/bench.sh

## fuzz: each native fuzz target for FUZZTIME (default 10s)
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

## conformance: oracle gen -> placer place -> oracle check against Nova's own
## code (needs ../shared/nova-oracle and python3-nova); IMPL=reference to check
## the reference; CONFORMANCE_SEEDS/HOSTS/INSTANCES to size it, and
## CONFORMANCE_FIRST_SEED (1) to start at later, unseen seeds;
## CONFORMANCE_PROFILES to pick the oracle's profiles (basic rich wide),
## CONFORMANCE_KERNELS the kernel paths (default; all, paths or names);
## weights are checked bit for bit (CONFORMANCE_EXACT=0: the oracle's 1e-6)
conformance:
	IMPL=$(IMPL) CONFORMANCE_SEEDS=$(CONFORMANCE_SEEDS) CONFORMANCE_FIRST_SEED=$(CONFORMANCE_FIRST_SEED) CONFORMANCE_HOSTS=$(CONFORMANCE_HOSTS) \
	CONFORMANCE_INSTANCES=$(CONFORMANCE_INSTANCES) CONFORMANCE_PROFILES="$(CONFORMANCE_PROFILES)" \
	CONFORMANCE_JOBS=$(CONFORMANCE_JOBS) CONFORMANCE_EXACT=$(CONFORMANCE_EXACT) \
	CONFORMANCE_KERNELS="$(CONFORMANCE_KERNELS)" scripts/conformance.sh

## plots: measure the scaling charts' data into docs/plots/data (engine,
## reference and Nova's own code on the same scenario files; the Scheduler
## at 1-16 workers) and draw them into docs/plots (placer plot); about 5
## minutes, PLOTS_HOSTS and SCHEDTIME to size it (see scripts/plots.sh)
plots:
	scripts/plots.sh

## pgo: refresh cmd/placer/default.pgo, the profile go build compiles the
## placer command with (three runs of placer simulate; scripts/pgo.sh)
pgo:
	scripts/pgo.sh

clean:
	rm -rf $(BIN) .work

// Command placer places a batch of instances the way OpenStack Nova's
// FilterScheduler would, from a scenario file (docs/formats.md).
//
//	placer place [-f FILE|-] [--impl engine|reference] [--timing [--runs N]]
//	placer help
//
//	placer simulate [--hosts N] [--requests N] [--workers N] [--seed N] [--json] ...
//	placer serve [--addr 127.0.0.1:8080] (--cloud FILE | --synthetic N | --etcd ENDPOINTS) ...
//	placer soak [--addr URL] [--duration 60s] [--clients 32] [--hosts 2000] ...
//	placer gen [--hosts N] [--instances K] [--seed S] [--profile basic|rich|edge] [-o FILE]
//	placer plot [--data DIR] [--out DIR]
//	placer explain [-f FILE|-] [--host HOST[/NODE]]...
//	placer capacity [-f FILE|-] [--flavor JSON] [--max N] [--drain HOST]... [--aggregate NAME:KEY=VALUE,...]...
//	placer etcd load --etcd ENDPOINTS (--cloud FILE | --synthetic N) ...
//
// Run "placer help" for the exit statuses.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses (documented in usage).
const (
	exitOK          = 0
	exitFailure     = 1 // anything else: an I/O error, an interrupt
	exitBadInput    = 2 // a bad scenario or a bad command line
	exitNoValidHost = 3
	exitNovaError   = 4 // another error Nova would raise (ComputeHostMetricNotFound)
)

const usage = `placer: Nova FilterScheduler placement, batch by batch.

Usage:
  placer place [-f FILE|-] [--impl engine|reference] [--timing [--runs N]]
      Read a scenario (docs/formats.md) from FILE, or stdin with "-f -",
      or, without -f, the embedded default scenario (200 hosts, 8 instances);
      place its request and print the result document on stdout.
        --impl engine      the engine (default)
        --impl reference   the per-host reference implementation
        --timing           print "place_seconds: X" on stderr: the time of the
                           placement alone (not reading the file, not building
                           the snapshot), the median of --runs placements
        --runs N           with --timing, place N times (default 31) on the one
                           snapshot (placing never changes it) and print the
                           median, as "oracle time -n" does; the first run is
                           the cold one; every run must agree
  ` + simulateUsage + `  ` + genUsage + `  ` + serveUsage + `  ` + etcdUsage + `  ` + soakUsage + `  ` + plotUsage + `  ` + explainUsage + `  ` + capacityUsage + `  placer help
      This text.

Exit status of placer place (the other commands: 0 done, 1 a failure or
a verification that failed, 2 a bad command line or input; placer
explain also 3 when no host passes, and placer explain and placer
capacity 4 for an error Nova would raise):
  0  placed
  1  another failure (I/O error, interrupted)
  2  bad input: one line on stderr naming the field path, e.g.
     hosts[17].free_ram_mb: want a number, got "12GB"
     (or a bad command line)
  3  NoValidHost: the result's "error" says which instance and which filters;
     "placements" holds the tentative choices made before it
  4  another error Nova would raise (ComputeHostMetricNotFound); the result's
     error.kind names it
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command, with its streams, returning the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadInput
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "place":
		return place(rest, stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "simulate":
		return simulate(rest, stdout, stderr)
	case "gen":
		return gen(rest, stdout, stderr)
	case "serve":
		return serve(rest, stderr)
	case "soak":
		return soakCmd(rest, stdout, stderr)
	case "etcd":
		return etcdCmd(rest, stdout, stderr)
	case "plot":
		return plot(rest, stdout, stderr)
	case "explain":
		return explainCmd(rest, stdin, stdout, stderr)
	case "capacity":
		return capacityCmd(rest, stdin, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "placer: unknown command %q (try placer help)\n", cmd)
		return exitBadInput
	}
}

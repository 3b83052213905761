package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

// defaultScenario is placed when no -f is given, so that
// "go run ./cmd/placer place" works on a fresh clone. Made with
// ../shared/nova-oracle/oracle gen --hosts 200 --instances 8 --seed 1 --profile basic
//
//go:embed default_scenario.json
var defaultScenario []byte

// preparer readies one implementation for a scenario, untimed (the
// engine builds its snapshot), and returns the placement of its request,
// which may be called again and again: none of them changes what the
// next one starts from (PlaceBatch never modifies a snapshot).
type preparer func(s *scenario.Scenario) (func(ctx context.Context) (engine.Plan, error), error)

// impls are the implementations --impl chooses from.
var impls = map[string]preparer{
	"engine": prepareEngine,
}

func prepareEngine(s *scenario.Scenario) (func(ctx context.Context) (engine.Plan, error), error) {
	snap, err := engine.NewSnapshot(s.Cloud)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (engine.Plan, error) { return engine.PlaceBatch(ctx, snap, s.Request) }, nil
}

// timedRuns places runs times and returns the first run's outcome with the
// median of the placement times. The first run is the cold one (its
// process faults in its scratch memory, its caches hold none of the
// snapshot); the median is the steady state of a scheduler that serves
// requests on a snapshot, as "oracle time -n" takes the median of Nova's
// runs, each on host states built afresh before it and not timed. Every
// run must come to the same result (errRunsDiffer). Interrupted (ctx
// done) before the runs are all made, it returns ctx's error.
func timedRuns(ctx context.Context, place func(context.Context) (engine.Plan, error), runs int) (engine.Plan, time.Duration, error) {
	start := time.Now()
	plan, err := place(ctx)
	times := []time.Duration{time.Since(start)}
	for len(times) < runs && ctx.Err() == nil {
		start := time.Now()
		again, err2 := place(ctx)
		d := time.Since(start)
		if ctx.Err() != nil {
			break
		}
		if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || !reflect.DeepEqual(plan.Placements, again.Placements) {
			return plan, 0, fmt.Errorf("run %d of --runs: %w", len(times)+1, errRunsDiffer)
		}
		times = append(times, d)
	}
	if err := ctx.Err(); err != nil {
		return plan, 0, err
	}
	slices.Sort(times)
	return plan, times[len(times)/2], err
}

// errRunsDiffer is timedRuns' error for a run that placed otherwise than
// the first.
var errRunsDiffer = errors.New("placed differently from the first")

func implNames() string {
	var names []string
	for name := range impls {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// place is "placer place".
func place(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer place", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := scenarioFlag(fs)
	impl := fs.String("impl", "engine", "implementation: "+implNames())
	timing := fs.Bool("timing", false, "print place_seconds (the placement alone) on stderr")
	runs := fs.Int("runs", 31, "with --timing: place this many times and print the median time")
	if status, ok := parseArgs(fs, args, stderr, afterF); !ok {
		return status
	}
	if *runs < 1 {
		fmt.Fprintf(stderr, "placer place: --runs %d: want at least 1\n", *runs)
		return exitBadInput
	}
	if g := given(fs, "runs"); !*timing && len(g) > 0 {
		fmt.Fprintln(stderr, "placer place: --runs needs --timing (it repeats the timed placement)")
		return exitBadInput
	}
	if !*timing {
		*runs = 1
	}
	prepare, ok := impls[*impl]
	if !ok {
		fmt.Fprintf(stderr, "placer place: unknown --impl %q (want %s)\n", *impl, implNames())
		return exitBadInput
	}

	s, err := readScenario(string(*file), stdin)
	if err != nil {
		return fail(stderr, "place", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	place, err := prepare(s)
	if err != nil {
		return fail(stderr, "place", err)
	}
	if *timing {
		runtime.GC() // reading the scenario's garbage is not the placement's
	}
	plan, elapsed, err := timedRuns(ctx, place, *runs)
	if errors.Is(err, engine.ErrInvalid) || errors.Is(err, errRunsDiffer) || errors.Is(err, context.Canceled) {
		return fail(stderr, "place", err) // exit 2, or 1: no time to print
	}
	if *timing {
		fmt.Fprintf(stderr, "place_seconds: %.6f\n", elapsed.Seconds())
	}
	doc, err := scenario.ResultOf(plan, err)
	if err != nil {
		return fail(stderr, "place", err)
	}
	out := bufio.NewWriter(stdout)
	if err := scenario.Encode(out, doc); err != nil {
		return fail(stderr, "place", err)
	}
	if err := out.Flush(); err != nil {
		return fail(stderr, "place", err)
	}
	switch {
	case doc.Error == nil:
		return exitOK
	case doc.Error.Kind == scenario.KindNoValidHost:
		return exitNoValidHost
	default:
		return exitNovaError
	}
}

// readScenario decodes the scenario of -f: a file, stdin ("-"), or the
// embedded default ("").
func readScenario(file string, stdin io.Reader) (*scenario.Scenario, error) {
	var r io.Reader
	switch file {
	case "":
		r = bytes.NewReader(defaultScenario)
	case "-":
		r = stdin
	default:
		f, err := os.Open(file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &engine.ValidationError{Msg: fmt.Sprintf("cannot read %s: %v", file, err)}
		}
		defer f.Close()
		r = f
	}
	return scenario.Decode(r)
}

// fail reports err on one line of stderr and returns its exit status: 2
// for bad input (its message names the field), 1 for anything else (its
// message prefixed with "placer CMD: ").
func fail(stderr io.Writer, cmd string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if errors.Is(err, engine.ErrInvalid) {
		fmt.Fprintln(stderr, msg)
		return exitBadInput
	}
	fmt.Fprintln(stderr, "placer "+cmd+": "+msg)
	return exitFailure
}

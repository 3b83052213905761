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

// placeFunc places a scenario's request with one implementation and says
// how long the placement itself took (building a snapshot is not timed).
type placeFunc func(ctx context.Context, s *scenario.Scenario) (engine.Plan, time.Duration, error)

// impls are the implementations --impl chooses from.
var impls = map[string]placeFunc{
	"engine": placeEngine,
}

func placeEngine(ctx context.Context, s *scenario.Scenario) (engine.Plan, time.Duration, error) {
	snap, err := engine.NewSnapshot(s.Cloud)
	if err != nil {
		return engine.Plan{}, 0, err
	}
	start := time.Now()
	plan, err := engine.PlaceBatch(ctx, snap, s.Request)
	return plan, time.Since(start), err
}

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
	file := fs.String("f", "", "scenario `FILE` (- for stdin; default: the embedded scenario)")
	impl := fs.String("impl", "engine", "implementation: "+implNames())
	timing := fs.Bool("timing", false, "print place_seconds (the placement alone) on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadInput
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "placer place: unexpected argument %q (the scenario goes after -f)\n", fs.Arg(0))
		return exitBadInput
	}
	placeWith, ok := impls[*impl]
	if !ok {
		fmt.Fprintf(stderr, "placer place: unknown --impl %q (want %s)\n", *impl, implNames())
		return exitBadInput
	}

	s, err := readScenario(*file, stdin)
	if err != nil {
		return fail(stderr, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	plan, elapsed, err := placeWith(ctx, s)
	if errors.Is(err, engine.ErrInvalid) {
		return fail(stderr, err)
	}
	if *timing {
		fmt.Fprintf(stderr, "place_seconds: %.6f\n", elapsed.Seconds())
	}
	doc, err := scenario.ResultOf(plan, err)
	if err != nil {
		return fail(stderr, err)
	}
	out := bufio.NewWriter(stdout)
	if err := scenario.Encode(out, doc); err != nil {
		return fail(stderr, err)
	}
	if err := out.Flush(); err != nil {
		return fail(stderr, err)
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
// for bad input, 1 for anything else.
func fail(stderr io.Writer, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if errors.Is(err, engine.ErrInvalid) {
		fmt.Fprintln(stderr, msg)
		return exitBadInput
	}
	fmt.Fprintln(stderr, "placer place: "+msg)
	return exitFailure
}

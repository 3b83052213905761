package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

// Ceilings of the counts the commands take: past them a value is refused
// (exit 2, naming the flag) rather than left to panic in make or exhaust
// the memory.
const (
	maxWorkers  = 4096    // --workers
	maxQueue    = 1 << 20 // serve --queue
	maxRequests = 1 << 21 // simulate --requests: all drawn before the run, ~1 KB each
	maxClients  = 1 << 16 // soak --clients
	maxMembers  = 9       // simulate --etcd-members
	maxPlacers  = 64      // simulate --placers
)

// span is a count flag's value and the range it must be in.
type span struct {
	name   string
	v      int64
	lo, hi int64
}

// inSpans reports whether every flag of spans is in its range; at the
// first that is not, it names the flag, its range and its value on
// stderr, after cmd (placer simulate: want --workers from 1 to 4096, got
// 0).
func inSpans(stderr io.Writer, cmd string, spans ...span) bool {
	for _, s := range spans {
		if s.v < s.lo || s.v > s.hi {
			fmt.Fprintf(stderr, "%s: want --%s from %d to %d, got %d\n", cmd, s.name, s.lo, s.hi, s.v)
			return false
		}
	}
	return true
}

// errWriter is a writer that keeps its first error: a report printed
// line by line is checked once, at its end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// given returns those of names the command line set (fs parsed), in
// order: a flag another one makes void is refused when given rather than
// ignored.
func given(fs *flag.FlagSet, names ...string) []string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var out []string
	for _, n := range names {
		if set[n] {
			out = append(out, "--"+n)
		}
	}
	return out
}

// parseArgs parses a command's flags; no command takes a positional
// argument. It reports whether the command goes on; when it does not,
// status is the exit status: exitOK after -h or --help (the flag set has
// printed its usage), exitBadInput after a bad flag (the flag package has
// named it) or a stray argument, which is named here with where, when not
// empty, saying where such a value goes instead.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer, where string) (status int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitBadInput, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q", fs.Name(), fs.Arg(0))
		if where != "" {
			fmt.Fprintf(stderr, " (%s)", where)
		}
		fmt.Fprintln(stderr)
		return exitBadInput, false
	}
	return exitOK, true
}

// afterF is parseArgs's hint for the commands that read a scenario.
const afterF = "the scenario goes after -f"

// scenarioFile is -f: a scenario file, - for stdin. Left out, the
// command reads the embedded scenario; given empty (-f "$UNSET"), it is
// refused rather than taken for left out.
type scenarioFile string

func (f *scenarioFile) String() string { return string(*f) }

func (f *scenarioFile) Set(s string) error {
	if s == "" {
		return errors.New("empty file name (- reads stdin; leave -f out for the embedded scenario)")
	}
	*f = scenarioFile(s)
	return nil
}

// scenarioFlag defines -f on fs.
func scenarioFlag(fs *flag.FlagSet) *scenarioFile {
	var f scenarioFile
	fs.Var(&f, "f", "scenario `FILE` (- for stdin; default: the embedded scenario)")
	return &f
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	if s == "" {
		return errors.New("empty value")
	}
	*l = append(*l, s)
	return nil
}

// hostList is a repeatable --host.
type hostList []engine.HostNode

func (h *hostList) String() string { return fmt.Sprint(*h) }

func (h *hostList) Set(s string) error {
	if s == "" {
		return errors.New("empty host name")
	}
	*h = append(*h, scenario.ParseHostNode(s))
	return nil
}

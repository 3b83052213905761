package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/scenario"
)

const capacityUsage = `placer capacity [-f FILE|-] [--flavor JSON] [--max N] [--drain HOST]... [--aggregate NAME:KEY=VALUE,...]...
      How many more instances of the scenario's request fit (docs/explain.md),
      each placed as Nova places one request after another, and where they
      land: {"now": ...} and, with --drain or --aggregate, {"after": ...} the
      same question with those changes applied first. Prints JSON.
        --flavor JSON   the flavor to ask about, a scenario flavor object
                        (default: the request's)
        --max N         try at most N instances (default 1000)
        --drain HOST    leave every node of HOST out (repeatable)
        --aggregate NAME:KEY=VALUE,...
                        set metadata keys of aggregate NAME (made when it does
                        not exist); NAME:-KEY deletes KEY (repeatable)
`

// capacityCmd is "placer capacity".
func capacityCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer capacity", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, capacityUsage) }
	file := scenarioFlag(fs)
	flavor := fs.String("flavor", "", "the flavor, a scenario flavor `JSON` object (default: the request's)")
	max := fs.Int("max", 1000, "try at most `N` instances")
	var drain, aggs stringList
	fs.Var(&drain, "drain", "leave every node of `HOST` out (repeatable)")
	fs.Var(&aggs, "aggregate", "`NAME:KEY=VALUE,...` or NAME:-KEY: change an aggregate's metadata (repeatable)")
	if status, ok := parseArgs(fs, args, stderr, afterF); !ok {
		return status
	}
	changes, err := parseAggregateFlags(aggs)
	if err != nil {
		return fail(stderr, "capacity", err)
	}
	s, err := readScenario(string(*file), stdin)
	if err != nil {
		return fail(stderr, "capacity", err)
	}
	req := s.Request
	if *flavor != "" {
		// One JSON object, checked before it is put in a request: pasted
		// as text, '{}, "num_instances": 3' would pass for a flavor.
		if !isOneObject(*flavor) {
			return fail(stderr, "capacity", &engine.ValidationError{Field: "--flavor", Msg: fmt.Sprintf("want one JSON object, got %q", *flavor)})
		}
		r, err := scenario.DecodeRequest(strings.NewReader(`{"flavor": ` + *flavor + `}`))
		var ve *engine.ValidationError
		if errors.As(err, &ve) {
			ve.Field = strings.Replace(ve.Field, "request.flavor", "--flavor", 1)
		}
		if err != nil {
			return fail(stderr, "capacity", err)
		}
		req.Flavor = r.Flavor
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := map[string]scenario.CapacityDoc{}
	snap, err := engine.NewSnapshot(s.Cloud)
	if err != nil {
		return fail(stderr, "capacity", err)
	}
	now, err := engine.Capacity(ctx, snap, req, engine.CapacityOptions{Max: *max})
	if err != nil {
		return capacityFail(stderr, err)
	}
	out["now"] = scenario.CapacityOf(now)
	if len(drain) > 0 || len(changes) > 0 {
		after := snap
		if len(changes) > 0 {
			if err := engine.ValidateAggregateChanges(&s.Cloud, changes); err != nil {
				var ve *engine.ValidationError
				if errors.As(err, &ve) {
					ve.Field = "--aggregate" + strings.TrimPrefix(ve.Field, "changes") // the flag's
				}
				return fail(stderr, "capacity", err)
			}
			if after, err = engine.NewSnapshot(s.Cloud.WithAggregates(changes)); err != nil {
				return fail(stderr, "capacity", err)
			}
		}
		rep, err := engine.Capacity(ctx, after, req, engine.CapacityOptions{Max: *max, Drain: drain})
		if err != nil {
			return capacityFail(stderr, err)
		}
		out["after"] = scenario.CapacityOf(rep)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fail(stderr, "capacity", err)
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fail(stderr, "capacity", err)
	}
	return exitOK
}

// capacityFail reports an error of engine.Capacity: bad input (the
// flags' names for its fields), a Nova error, an interrupt.
func capacityFail(stderr io.Writer, err error) int {
	var ve *engine.ValidationError
	if errors.As(err, &ve) {
		switch {
		case ve.Field == "max":
			ve.Field = "--max"
		case strings.HasPrefix(ve.Field, "drain["):
			ve.Field = "--" + ve.Field
		}
		return fail(stderr, "capacity", err)
	}
	fmt.Fprintln(stderr, "placer capacity: "+err.Error())
	if errors.Is(err, context.Canceled) {
		return exitFailure
	}
	return exitNovaError
}

// parseAggregateFlags reads the --aggregate flags.
func parseAggregateFlags(flags []string) ([]engine.AggregateChange, error) {
	var out []engine.AggregateChange
	for i, f := range flags {
		name, rest, ok := strings.Cut(f, ":")
		if !ok || name == "" || rest == "" {
			return nil, &engine.ValidationError{Field: fmt.Sprintf("--aggregate[%d]", i), Msg: fmt.Sprintf("want NAME:KEY=VALUE,... or NAME:-KEY, got %q", f)}
		}
		ch := engine.AggregateChange{Name: name, Set: map[string]string{}}
		for _, kv := range strings.Split(rest, ",") {
			if k, ok := strings.CutPrefix(kv, "-"); ok && k != "" {
				ch.Delete = append(ch.Delete, k)
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, &engine.ValidationError{Field: fmt.Sprintf("--aggregate[%d]", i), Msg: fmt.Sprintf("want KEY=VALUE or -KEY, got %q", kv)}
			}
			ch.Set[k] = v
		}
		out = append(out, ch)
	}
	return out, nil
}

// isOneObject reports whether text is one JSON object and nothing else.
func isOneObject(text string) bool {
	dec := json.NewDecoder(strings.NewReader(text))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

package main

import (
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

const explainUsage = `placer explain [-f FILE|-] [--host HOST[/NODE]]...
      Explain how the scenario's request would place its first instance
      (docs/explain.md): for each host, the first filter that rejects it and
      why (Nova's log line where placer can write it word for word), or its
      weight weigher by weigher (raw, normalized, multiplier, contribution)
      and its rank; and the host chosen. Prints a JSON document. Exit status
      0 when a host passes, 3 when none does, 4 when Nova would raise.
        --host H        report only host H (every node) or H/NODE; repeat
                        for several (the filters and weighers still run
                        over every host)
`

// explainCmd is "placer explain".
func explainCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, explainUsage) }
	file := scenarioFlag(fs)
	var hosts hostList
	fs.Var(&hosts, "host", "report only this `HOST[/NODE]` (repeatable)")
	if status, ok := parseArgs(fs, args, stderr, afterF); !ok {
		return status
	}
	s, err := readScenario(string(*file), stdin)
	if err != nil {
		return fail(stderr, "explain", err)
	}
	snap, err := engine.NewSnapshot(s.Cloud)
	if err != nil {
		return fail(stderr, "explain", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e, err := engine.Explain(ctx, snap, s.Request, engine.ExplainOptions{Hosts: hosts})
	var ve *engine.ValidationError
	if errors.As(err, &ve) && ve.Field != "" && strings.HasPrefix(ve.Field, "hosts[") {
		// hosts[i] is the i-th --host.
		ve.Field = "--host" + ve.Field[len("hosts"):]
	}
	if err != nil {
		if errors.Is(err, engine.ErrInvalid) {
			return fail(stderr, "explain", err)
		}
		fmt.Fprintln(stderr, "placer explain: "+err.Error())
		if errors.Is(err, context.Canceled) {
			return exitFailure
		}
		return exitNovaError
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(scenario.ExplainOf(e)); err != nil {
		return fail(stderr, "explain", err)
	}
	if e.Candidates == 0 {
		return exitNoValidHost
	}
	return exitOK
}

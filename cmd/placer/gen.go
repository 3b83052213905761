package main

import (
	"bufio"
	"flag"
	"fmt"
	"github.com/placer/placer/engine"
	"io"
	"strings"

	"github.com/placer/placer/internal/scenario"
	"github.com/placer/placer/internal/synth"
)

const genUsage = `placer gen [--hosts N] [--instances K] [--seed S] [--profile basic|rich|edge] [-o FILE]
      Write a synthetic scenario (docs/formats.md) from internal/synth,
      the generator the benchmarks and "placer simulate" use: its cloud and
      the first request of its stream. The same flags give the same file.
        --hosts N       compute nodes (default 0: 100 for basic and rich,
                        1-40 drawn from the seed for edge)
        --instances K   instances of the request (default 0: drawn from
                        the seed)
        --seed S        seed (default 1)
        --profile P     basic (Nova's defaults), rich (every filter and
                        weigher, varied options) or edge (small adversarial
                        clouds); default basic
        -o FILE         write FILE instead of stdout
`

// gen is "placer gen".
func gen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("placer gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, genUsage) }
	var o synth.Options
	fs.IntVar(&o.Hosts, "hosts", 0, "")
	fs.IntVar(&o.Instances, "instances", 0, "")
	fs.Uint64Var(&o.Seed, "seed", 1, "")
	fs.StringVar(&o.Profile, "profile", synth.Basic, "")
	out := fs.String("o", "", "")
	if status, ok := parseArgs(fs, args, stderr, ""); !ok {
		return status
	}
	if !inSpans(stderr, "placer gen", span{"hosts", int64(o.Hosts), 0, synth.MaxHosts},
		span{"instances", int64(o.Instances), 0, engine.MaxInstances}) {
		return exitBadInput
	}
	if err := o.Validate(); err != nil { // the profile
		fmt.Fprintln(stderr, "placer gen: "+strings.TrimPrefix(err.Error(), "synth: "))
		return exitBadInput
	}
	cloud, req := synth.Scenario(o)
	s := &scenario.Scenario{Cloud: cloud, Request: req}

	encode := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := scenario.EncodeScenario(bw, s); err != nil {
			return err
		}
		return bw.Flush()
	}
	var err error
	if *out != "" {
		err = writeFileAtomic(*out, encode) // whole or not at all
	} else {
		err = encode(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "placer gen:", err)
		return exitFailure
	}
	return exitOK
}

package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
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
	if err := o.Validate(); err != nil {
		fmt.Fprintln(stderr, "placer gen: "+strings.TrimPrefix(err.Error(), "synth: "))
		return exitBadInput
	}
	cloud, req := synth.Scenario(o)
	s := &scenario.Scenario{Cloud: cloud, Request: req}

	w := stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintln(stderr, "placer gen:", err)
			return exitFailure
		}
		w = f
	}
	bw := bufio.NewWriter(w)
	err := scenario.EncodeScenario(bw, s)
	if err == nil {
		err = bw.Flush()
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "placer gen:", err)
		return exitFailure
	}
	return exitOK
}

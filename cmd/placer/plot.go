package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/placer/placer/internal/plots"
)

const plotUsage = `placer plot [--data DIR] [--out DIR]
      Draw the scaling charts as SVG from measurements kept as text ("make
      plots" measures them and then runs this): every *.txt file of DIR,
      go test -bench output and timing records alike (a line
      "$ COMMAND  # series=S hosts=N instances=K" and the output of placer
      place --timing or oracle time below it), each file with its header
      (commit, cpuinfo, avx512f, go, date: the charts' caption). Writes,
      into --out,
        hosts.svg       time per batch against hosts, one line per
                        implementation (the timing records)
        workers.svg     placements/s against Scheduler workers (benchmark
                        results with a workers= part)
        placebatch.svg  BenchmarkPlaceBatch's ns/op against hosts, when
                        the data has such results
      and names on stdout each file it wrote.
        --data DIR      the measurements (default docs/plots/data)
        --out DIR       where the charts go (default docs/plots)
`

// plotChart is one chart placer plot can draw, and the file it goes to.
type plotChart struct {
	file  string
	build func(*plots.Data) (*plots.LineChart, error)
}

var plotCharts = []plotChart{
	{"hosts.svg", plots.HostsChart},
	{"workers.svg", plots.WorkersChart},
	{"placebatch.svg", plots.PlaceBatchChart},
}

// plot is "placer plot".
func plot(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("placer plot", flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() { fmt.Fprint(stderr, plotUsage) }
	dataDir := fset.String("data", filepath.Join("docs", "plots", "data"), "")
	outDir := fset.String("out", filepath.Join("docs", "plots"), "")
	if status, ok := parseArgs(fset, args, stderr, "the data directory goes after --data"); !ok {
		return status
	}
	data, err := readPlotData(*dataDir)
	if err != nil {
		fmt.Fprintln(stderr, "placer plot:", err)
		return exitBadInput
	}
	var drawn int
	var missing []string
	for _, pc := range plotCharts {
		chart, err := pc.build(data)
		if errors.Is(err, plots.ErrNoData) {
			missing = append(missing, pc.file+": "+strings.TrimPrefix(err.Error(), plots.ErrNoData.Error()+": "))
			continue
		}
		var svg bytes.Buffer
		if err == nil {
			err = chart.WriteSVG(&svg)
		}
		if err != nil {
			fmt.Fprintf(stderr, "placer plot: %s: %v\n", pc.file, err)
			return exitBadInput
		}
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			fmt.Fprintln(stderr, "placer plot:", err)
			return exitFailure
		}
		path := filepath.Join(*outDir, pc.file)
		if err := os.WriteFile(path, svg.Bytes(), 0o644); err != nil {
			fmt.Fprintln(stderr, "placer plot:", err)
			return exitFailure
		}
		fmt.Fprintln(stdout, path)
		drawn++
	}
	if drawn == 0 {
		fmt.Fprintf(stderr, "placer plot: nothing to draw from %s (%s)\n", *dataDir, strings.Join(missing, "; "))
		return exitBadInput
	}
	return exitOK
}

// readPlotData parses every *.txt file of dir.
func readPlotData(dir string) (*plots.Data, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("no measurements: %s does not exist (make plots measures them)", dir)
	case err != nil:
		return nil, err
	case !st.IsDir():
		return nil, fmt.Errorf("--data %s: not a directory", dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no measurements: %s holds no *.txt data file (make plots measures them)", dir)
	}
	data := &plots.Data{}
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		d, err := plots.Parse(f, file)
		f.Close()
		if err != nil {
			return nil, err
		}
		data.Add(d)
	}
	return data, nil
}

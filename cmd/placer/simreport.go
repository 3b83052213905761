package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/plots"
)

// simulate --report: what the run did over time, and the capacity left
// after it, as an HTML page of SVG charts (internal/plots).

// simTrace is what a run records for its report.
type simTrace struct {
	start time.Time
	mu    sync.Mutex
	// samples are the store's utilization and the Scheduler's placements,
	// every sampleEvery.
	samples []simSample
	// finished and latency are each request's end (seconds into the run)
	// and latency (seconds).
	finished, latency []float64
	// final is the store's last snapshot; req the stream's first request,
	// whose capacity the report shows.
	final *engine.Snapshot
	req   engine.Request
}

// simSample is one sample of a run.
type simSample struct {
	T          float64
	Util       engine.Utilization
	Placements int64
}

// newSimTrace is the trace of a run of n requests.
func newSimTrace(n int) *simTrace {
	return &simTrace{finished: make([]float64, n), latency: make([]float64, n)}
}

// sampleEvery is the sampling period of a traced run.
const sampleEvery = 200 * time.Millisecond

// sample records the store's utilization and the placements made until
// ctx ends, and once more then.
func (tr *simTrace) sample(ctx context.Context, store *engine.Store, sc *engine.Scheduler) {
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	take := func() {
		var u engine.Utilization
		store.View(func(snap *engine.Snapshot) { u = snap.Utilization() })
		s := simSample{T: time.Since(tr.start).Seconds(), Util: u, Placements: sc.Stats().Instances}
		tr.mu.Lock()
		tr.samples = append(tr.samples, s)
		tr.mu.Unlock()
	}
	take()
	for {
		select {
		case <-ctx.Done():
			take()
			return
		case <-tick.C:
			take()
		}
	}
}

// capacityMax bounds the report's capacity question.
const capacityMax = 2000

// writeSimReport writes the HTML report of a traced run to path.
func writeSimReport(path string, rep *simReport, tr *simTrace) error {
	var charts []string
	svg := func(write func(io.Writer) error) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		charts = append(charts, b.String())
		return nil
	}
	util := make([]plots.Series, 3)
	util[0].Name, util[1].Name, util[2].Name = "RAM", "vCPUs", "disk"
	rate := plots.Series{Name: "placements/s"}
	for k, s := range tr.samples {
		util[0].Points = append(util[0].Points, plots.Point{X: s.T, Y: 100 * s.Util.RAM})
		util[1].Points = append(util[1].Points, plots.Point{X: s.T, Y: 100 * s.Util.VCPU})
		util[2].Points = append(util[2].Points, plots.Point{X: s.T, Y: 100 * s.Util.Disk})
		if k > 0 && s.T > tr.samples[k-1].T {
			p := tr.samples[k-1]
			rate.Points = append(rate.Points, plots.Point{X: s.T, Y: float64(s.Placements-p.Placements) / (s.T - p.T)})
		}
	}
	caption := fmt.Sprintf("placer simulate: %d hosts, %d requests, %d workers", rep.Hosts, rep.Requests, rep.Workers)
	if err := svg(plots.TimeSeries("Utilization", "% used", util, caption, "the store's used fraction of every host's RAM, vCPUs and disk").WriteSVG); err != nil {
		return err
	}
	if lat := latencySeries(tr); len(lat) > 0 {
		if err := svg(plots.TimeSeries("Latency", "milliseconds", lat, caption, "Scheduler.Place, by window of the run: the requests that ended in it").WriteSVG); err != nil {
			return err
		}
	}
	if len(rate.Points) > 0 {
		if err := svg(plots.TimeSeries("Throughput", "placements per second", []plots.Series{rate}, caption).WriteSVG); err != nil {
			return err
		}
	}
	capRep, capNote, err := simCapacity(tr)
	if err != nil {
		return err
	}
	if capRep != nil && capRep.Fit > 0 {
		if err := svg(capacityChart(tr, capRep, capNote).WriteSVG); err != nil {
			return err
		}
	}
	var page bytes.Buffer
	fmt.Fprintf(&page, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>placer simulate</title></head><body>\n")
	fmt.Fprintf(&page, "<h1>placer simulate</h1>\n<table>\n")
	row := func(k string, v any) {
		fmt.Fprintf(&page, "<tr><th align=left>%s</th><td>%s</td></tr>\n", html.EscapeString(k), html.EscapeString(fmt.Sprint(v)))
	}
	row("hosts", rep.Hosts)
	if rep.IronicNodes > 0 || rep.Driver != "" {
		row("cloud", cloudShape(rep))
	}
	row("workers", rep.Workers)
	row("requests", rep.Requests)
	row("placed requests", rep.Placed)
	row("placements", rep.Placements)
	row("no valid host", rep.NoValidHost)
	row("conflict retries", rep.ConflictRetries)
	row("latency p50, p95, p99 (ms)", fmt.Sprintf("%.3f, %.3f, %.3f", 1000*rep.LatencyP50, 1000*rep.LatencyP95, 1000*rep.LatencyP99))
	row("verified", rep.Verified)
	row("capacity left", capNote)
	fmt.Fprintf(&page, "</table>\n")
	for _, c := range charts {
		page.WriteString("<div>\n" + c + "\n</div>\n")
	}
	page.WriteString("</body></html>\n")
	return writeFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	})
}

// latencySeries is the p50 and p99 latency of the requests that ended in
// each of about 30 windows of the run.
func latencySeries(tr *simTrace) []plots.Series {
	end := slices.Max(append([]float64{0}, tr.finished...))
	if end <= 0 {
		return nil
	}
	const windows = 30
	w := end / windows
	byWin := make([][]float64, windows)
	for i, t := range tr.finished {
		k := min(int(t/w), windows-1)
		byWin[k] = append(byWin[k], tr.latency[i])
	}
	p50, p99 := plots.Series{Name: "p50"}, plots.Series{Name: "p99"}
	for k, ls := range byWin {
		if len(ls) == 0 {
			continue
		}
		slices.Sort(ls)
		x := (float64(k) + 0.5) * w
		p50.Points = append(p50.Points, plots.Point{X: x, Y: 1000 * quantile(ls, 0.5)})
		p99.Points = append(p99.Points, plots.Point{X: x, Y: 1000 * quantile(ls, 0.99)})
	}
	return []plots.Series{p50, p99}
}

// simCapacity asks how many more of the stream's first request's flavor
// fit on the run's final state (engine.Capacity, at most capacityMax).
func simCapacity(tr *simTrace) (*engine.CapacityReport, string, error) {
	req := tr.req
	req.InstanceGroup = nil
	rep, err := engine.Capacity(context.Background(), tr.final, req, engine.CapacityOptions{Max: capacityMax})
	if err != nil {
		return nil, fmt.Sprintf("capacity: %v", err), nil
	}
	count := fmt.Sprint(rep.Fit)
	if !rep.Full {
		count = "at least " + count
	}
	return rep, fmt.Sprintf("%s more of %s (%d MB, %d vCPUs) fit, on %d hosts",
		count, req.Flavor.Name, req.Flavor.MemoryMB, req.Flavor.VCPUs, len(rep.PerHost)), nil
}

// capacityChart is the picture of hosts filling: for the hosts the
// capacity question placed the most on, their RAM in use after the run,
// the RAM the placed instances take, and what is left under the ratio.
func capacityChart(tr *simTrace, rep *engine.CapacityReport, note string) *plots.BarChart {
	hosts := rep.PerHost[:min(len(rep.PerHost), 30)]
	used, placed, free := plots.Series{Name: "in use"}, plots.Series{Name: "placed by the question"}, plots.Series{Name: "left"}
	var cats []string
	for _, h := range hosts {
		u, c := tr.final.Usage(h.ID), tr.final.Capacity(h.ID)
		ratio := c.RAMRatio
		if !c.Enforced.RAM {
			ratio = 1
		}
		inUse := float64(c.MemoryMB - u.FreeRAMMB)
		took := float64(int64(h.Count) * tr.req.Flavor.MemoryMB)
		left := math.Max(0, float64(c.MemoryMB)*ratio-inUse-took)
		cats = append(cats, h.Host)
		used.Points = append(used.Points, plots.Point{Y: inUse / 1024})
		placed.Points = append(placed.Points, plots.Point{Y: took / 1024})
		free.Points = append(free.Points, plots.Point{Y: left / 1024})
	}
	return &plots.BarChart{
		Title: "Capacity left: hosts filling", XLabel: "host", Y: plots.Axis{Label: "RAM (GB)"},
		Categories: cats, Series: []plots.Series{used, placed, free}, Stacked: true,
		Caption: []string{note, "the hosts that took the most; RAM limit = total × allocation ratio"},
	}
}

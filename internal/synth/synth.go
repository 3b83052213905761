package synth

import (
	"fmt"

	"github.com/placer/placer/engine"
)

// Profiles.
const (
	// Basic is a realistic cloud with Nova's default filters, weighers and
	// options.
	Basic = "basic"
	// Rich is a realistic cloud with the whole filter catalogue in a
	// shuffled order, every weigher with varied multipliers and varied
	// scheduler options.
	Rich = "rich"
	// Edge is a small adversarial cloud for differential testing: odd
	// resource values, ties, several nodes per host, every filter and
	// weigher in random subsets and orders, tricky requests.
	Edge = "edge"
)

// Profiles lists the known profiles.
var Profiles = []string{Basic, Rich, Edge}

// Options says what to generate.
type Options struct {
	// Hosts is the number of compute nodes. 0 means 100 for basic and
	// rich, and a random count from 1 to 40 for edge.
	Hosts int
	// Instances is the number of instances of every request. 0 lets each
	// request draw its own size (1-20 for basic and rich, weighted toward
	// small requests; 1-8 for edge).
	Instances int
	// Seed makes the output: the same Options give the same cloud and the
	// same request stream, always.
	Seed uint64
	// Profile is Basic, Rich or Edge; "" means Basic.
	Profile string

	// The drivers of older Nova releases (issue 20), off by default and
	// in no profile: placer gen's scenarios, which the oracle reads, never
	// have them. They change the cloud after the profile made it, from a
	// stream of their own, so the rest of the cloud and the requests are
	// those of the same Options without them.
	//
	// SchedulerDriver, when not "", is the configuration's
	// scheduler_driver (engine.DriverChanceScheduler...).
	SchedulerDriver string
	// IronicNodes, from 0 to 1, is the share of nodes made ironic nodes
	// (hypervisor_type "ironic", either free or in use whole, as the
	// ironic driver reports them); any share above 0 also sets the
	// ironic_host_manager.
	IronicNodes float64
}

// MaxHosts bounds Options.Hosts: a cloud of that many hosts takes a few GB
// to generate, and one past it would rather run the machine out of memory
// than fail.
const MaxHosts = 1 << 22

// Validate reports Options that New would refuse.
func (o Options) Validate() error {
	switch o.Profile {
	case "", Basic, Rich, Edge:
	default:
		return fmt.Errorf("synth: unknown profile %q (want basic, rich or edge)", o.Profile)
	}
	if o.Hosts < 0 || o.Hosts > MaxHosts {
		return fmt.Errorf("synth: hosts: want an integer from 0 to %d, got %d", MaxHosts, o.Hosts)
	}
	if o.Instances < 0 || o.Instances > engine.MaxInstances {
		return fmt.Errorf("synth: instances: want an integer from 0 to %d (a request's most), got %d", engine.MaxInstances, o.Instances)
	}
	switch o.SchedulerDriver {
	case "", engine.DriverFilterScheduler, engine.DriverChanceScheduler:
	default:
		return fmt.Errorf("synth: unknown scheduler driver %q", o.SchedulerDriver)
	}
	if !(o.IronicNodes >= 0 && o.IronicNodes <= 1) {
		return fmt.Errorf("synth: ironic nodes: want a share from 0 to 1, got %v", o.IronicNodes)
	}
	return nil
}

// Generator makes one cloud and a stream of requests over it.
//
// The cloud and the requests are drawn from independent PCG streams of
// Options.Seed, so the k-th request depends only on the Options and k, not
// on whether or when Cloud was called. A Generator is not safe for
// concurrent use.
type Generator struct {
	o     Options
	cloud engine.Cloud
	meta  *meta
	rr    rng // the request stream
	next  int // requests made so far
}

// meta is what the request generators need to know about the cloud beyond
// engine.Cloud itself.
type meta struct {
	// instCum[i] is the number of existing instances on hosts[0..i]
	// (cumulative), to draw an existing instance uniformly.
	instCum []int
	// gen is each host's hardware generation (realistic profiles).
	gen []uint8
	// specialImage is the isolated image requests sometimes boot.
	specialImage string
	// hostNames are the distinct host names, in first-seen order (edge).
	hostNames []string
}

// New returns a Generator for o. It panics on Options that Validate
// refuses.
func New(o Options) *Generator {
	if err := o.Validate(); err != nil {
		panic(err)
	}
	if o.Profile == "" {
		o.Profile = Basic
	}
	g := &Generator{o: o, rr: newRNG(o.Seed, streamRequest)}
	cr := newRNG(o.Seed, streamCloud)
	switch o.Profile {
	case Edge:
		g.cloud, g.meta = edgeCloud(cr, o.Hosts)
	default:
		n := o.Hosts
		if n == 0 {
			n = 100
		}
		g.cloud, g.meta = realisticCloud(cr, n, o.Profile == Rich)
	}
	applyDrivers(&g.cloud, o)
	return g
}

// applyDrivers sets Options.SchedulerDriver and makes Options.IronicNodes
// of the nodes ironic nodes, drawing from the drivers stream only.
func applyDrivers(c *engine.Cloud, o Options) {
	if o.SchedulerDriver != "" {
		c.Config.SchedulerDriver = o.SchedulerDriver
	}
	if o.IronicNodes <= 0 {
		return
	}
	c.Config.HostManager = engine.HostManagerIronic
	r := newRNG(o.Seed, streamDrivers)
	ironic := engine.HVTypeIronic
	for i := range c.Hosts {
		if !r.chance(o.IronicNodes) {
			continue
		}
		h := &c.Hosts[i]
		h.HypervisorType = &ironic
		if r.chance(0.5) { // in use: the driver reports it all used
			h.FreeRAMMB, h.FreeDiskGB, h.VCPUsUsed = 0, 0, h.VCPUs
		} else {
			h.FreeRAMMB, h.FreeDiskGB, h.VCPUsUsed = h.MemoryMB, h.LocalGB, 0
		}
	}
}

// Options returns the generator's options, with the default profile filled
// in.
func (g *Generator) Options() Options { return g.o }

// Cloud returns the generated cloud. Every call returns the same Cloud,
// whose slices and maps are shared with the Generator: treat it as
// read-only (engine.NewSnapshot does).
func (g *Generator) Cloud() engine.Cloud { return g.cloud }

// Request returns the next request of the stream. Requests vary in flavor,
// size (unless Options.Instances fixes it), image, server group, hints and
// the like; their instance uuids are fresh random uuids, so requests of one
// stream never share one.
func (g *Generator) Request() engine.Request {
	g.next++
	n := g.o.Instances
	if g.o.Profile == Edge {
		if n == 0 {
			n = g.rr.between(1, 8)
		}
		return edgeRequest(g.rr, &g.cloud, g.meta, n)
	}
	if n == 0 {
		n = requestSize(g.rr)
	}
	return realisticRequest(g.rr, &g.cloud, g.meta, n, g.o.Profile == Rich)
}

// Requests returns the next n requests of the stream.
func (g *Generator) Requests(n int) []engine.Request {
	out := make([]engine.Request, n)
	for i := range out {
		out[i] = g.Request()
	}
	return out
}

// Cloud is New(o).Cloud().
func Cloud(o Options) engine.Cloud { return New(o).Cloud() }

// Scenario returns the cloud of o and the first request of its stream.
func Scenario(o Options) (engine.Cloud, engine.Request) {
	g := New(o)
	return g.Cloud(), g.Request()
}

// requestSize draws a request size from 1 to 20, most often small.
func requestSize(r rng) int {
	switch x := r.Float64(); {
	case x < 0.45:
		return 1
	case x < 0.8:
		return r.between(2, 5)
	case x < 0.95:
		return r.between(6, 10)
	default:
		return r.between(11, 20)
	}
}

package novacases

import "github.com/placer/placer/engine"

// normalizeCases are nova/tests/unit/test_weights.py's normalize cases that
// a placement can show (no weigher of the catalogue sets maxval, so the
// maxval cases are not expressible here), through NumInstancesWeigher (no
// minval) and RAMWeigher (minval 0).
func normalizeCases() []Case {
	numInst := func(mult float64, counts ...int64) engine.Cloud {
		c := engine.Cloud{Config: config(nil, names(engine.NumInstancesWeigher), func(c *engine.Config) {
			c.NumInstancesWeightMultiplier = mult
		})}
		for i, n := range counts {
			c.Hosts = append(c.Hosts, host(hname(i), numInst(n)))
		}
		return c
	}
	freeRAM := func(mult float64, free ...int64) engine.Cloud {
		c := engine.Cloud{Config: config(nil, names(engine.RAMWeigher), func(c *engine.Config) {
			c.RAMWeightMultiplier = mult
		})}
		for i, f := range free {
			c.Hosts = append(c.Hosts, host(hname(i), ram(8192, f)))
		}
		return c
	}
	return []Case{
		{
			Name:  "normalize/one-candidate-weighs-0",
			Cloud: freeRAM(1, 4096),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
		},
		{
			// A single candidate is not weighed: a required metric it lacks
			// raises nothing.
			Name: "normalize/one-candidate-no-weigher-runs",
			Cloud: engine.Cloud{
				Config: config(nil, names(engine.MetricsWeigher), func(c *engine.Config) {
					c.MetricsWeightSetting = []engine.MetricWeight{{Name: "cpu.frequency", Ratio: 1}}
				}),
				Hosts: []engine.Host{host("h1")},
			},
			Req:  request(1),
			Want: Want{Hosts: names("h1"), Weights: []float64{0}},
		},
		{
			Name:  "normalize/[0,0]-all-zero",
			Cloud: numInst(1, 0, 0),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
		},
		{
			Name:  "normalize/[1,1]-all-zero",
			Cloud: numInst(1, 1, 1),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
		},
		{
			Name:  "normalize/[20,50]-max-is-1",
			Cloud: numInst(1, 20, 50),
			Req:   request(1),
			Want:  Want{Hosts: names("h2"), Weights: []float64{1.0}},
		},
		{
			Name:  "normalize/[20,50]-min-is-0",
			Cloud: numInst(-1, 20, 50),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
		},
		{
			Name:  "normalize/minval-0-[20,50]-gives-0.4",
			Cloud: freeRAM(-1, 20, 50),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{-0.4}},
		},
		{
			Name:  "normalize/minval-0-[20,50]-gives-1.0",
			Cloud: freeRAM(1, 20, 50),
			Req:   request(1),
			Want:  Want{Hosts: names("h2"), Weights: []float64{1.0}},
		},
		{
			// minval 0: equal raw values normalise to 1.0 each, not 0.
			Name:  "normalize/minval-0-equal-values-give-1",
			Cloud: freeRAM(1, 4096, 4096),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{1.0}},
		},
		{
			// minval 0 and every raw value clamped to 0: all 0.
			Name:  "normalize/minval-0-all-negative-give-0",
			Cloud: freeRAM(1, -100, -200),
			Req:   request(1),
			Want:  Want{Hosts: names("h1"), Weights: []float64{0}},
		},
	}
}

// hname is the i-th host's name: h1, h2, ...
func hname(i int) string { return "h" + itoa(i+1) }

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestValidateJoiningMatchesMaps checks the scan that validates the few
// hosts joining trusted ones (validateJoining) against the checks across
// all hosts by maps (validateCloud with none trusted): clouds whose last
// hosts repeat an earlier host's name and node, uuid, or host name (of
// several nodes) with another service, or lack a name, must fail both
// ways with the same error, and valid ones pass both.
func TestValidateJoiningMatchesMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	failed := 0
	for trial := range 400 {
		c := tightCloud(joiningFew + 2 + rng.IntN(20)) // the maps validate it whole
		for i := range c.Hosts {
			h := &c.Hosts[i]
			if rng.IntN(2) == 0 {
				h.UUID = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
			}
			if rng.IntN(3) == 0 {
				h.Node = fmt.Sprintf("n%d", i)
			}
			if i > 0 && rng.IntN(3) == 0 { // another node of an earlier host
				h.Host, h.Node = c.Hosts[rng.IntN(i)].Host, fmt.Sprintf("n%d", i)
			}
		}
		joining := 1 + rng.IntN(joiningFew)
		trusted := len(c.Hosts) - joining
		for range 2 { // two joining hosts changed (or one twice)
			i := trusted + rng.IntN(joining)
			h, o := &c.Hosts[i], &c.Hosts[rng.IntN(i)]
			switch rng.IntN(10) { // 5-9: unchanged
			case 0:
				h.Host, h.Node = o.Host, o.Node
			case 1:
				h.UUID = o.UUID
			case 2:
				h.Host, h.Node, h.Service.Disabled = o.Host, fmt.Sprintf("other%d", i), !o.Service.Disabled
			case 3:
				h.Host, h.Node = o.Host, fmt.Sprintf("other%d", i) // a second node of one service
			case 4:
				h.Host = ""
			}
		}
		want := fmt.Sprint(validateCloud(&c, 0))
		var got error
		for i := trusted; i < len(c.Hosts) && got == nil; i++ {
			got = validateJoining(&c, i)
		}
		if fmt.Sprint(got) != want {
			t.Fatalf("trial %d: the scan says %v, the maps %v", trial, got, want)
		}
		if got := fmt.Sprint(validateCloud(&c, trusted)); got != want { // the scan, dispatched
			t.Fatalf("trial %d: validateCloud with %d trusted says %v, the maps %v", trial, trusted, got, want)
		}
		if got != nil {
			failed++
		}
	}
	if failed < 100 || failed > 300 {
		t.Fatalf("%d of 400 clouds failed: want both kinds well represented", failed)
	}
}

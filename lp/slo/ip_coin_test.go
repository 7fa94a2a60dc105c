//go:build coin

package slo

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp/coin"
	"github.com/tailbound/tailbound/lp/exhaustive"
)

// allCuts returns, for every row of m with at most maxRow members, the
// extended cover inequality of each of its minimal covers
// (component.minimalCovers, as EnumerateCuts uses).
func allCuts(m *component, maxRow int) []cut {
	var out []cut
	for r, row := range m.rowItems {
		if len(row) <= maxRow {
			out = append(out, m.minimalCovers(r)...)
		}
	}
	return out
}

// TestCBCWithCutsAndStart: on random small instances where pairs compete
// for capacity (optional and forced caching, B = 1..4), each component's
// program handed to CBC as Violations does under -tags coin (solveIP),
// with every extended cover inequality of its rows as
// extra rows and a MIP start (the greedy schedule, or serving nothing),
// gives the exhaustive search's optimum; stopped after one node, its
// certified bound never puts the fewest violations above that optimum, and
// its schedule never serves fewer pairs than the start.
func TestCBCWithCutsAndStart(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 40))
	comps, withCuts, improved := 0, 0, 0
	for i := 0; i < 300; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		for _, be := range []coin.CBC{{}, {MaxNodes: 1}} {
			pr := reduce(in, s)
			served := make([]bool, len(pr.cands))
			if i%4 < 2 { // else start from serving nothing
				pr.improve(context.Background(), served)
			}
			members := pr.members()
			ub := make([]int, pr.ncomp)
			total, bound := 0, 0
			for comp, mem := range members {
				ub[comp] = len(mem)
				pr.learn(comp, allCuts(pr.newComponent(mem), 12), nil)
				comps++
				if len(pr.learned[comp]) > 0 {
					withCuts++
				}
				before := 0
				for _, k := range mem {
					if served[k] {
						before++
					}
				}
				got, ok, err := pr.solveIP(context.Background(), comp, mem, served, ub, Options{Backend: be})
				if err != nil {
					t.Fatalf("%v s=%d %+v: %v", c, s, be, err)
				}
				after := 0
				for _, k := range mem {
					if served[k] {
						after++
					}
				}
				if after > before {
					improved++
				}
				if after < before {
					t.Fatalf("%v s=%d %+v: component %d serves %d pairs after CBC, %d before", c, s, be, comp, after, before)
				}
				if be.MaxNodes == 0 && !ok {
					t.Fatalf("%v s=%d %+v: component %d not proven: %v", c, s, be, comp, pr.ipNotes)
				}
				if ok && got != after {
					t.Fatalf("%v s=%d %+v: proven %d pairs, the schedule serves %d", c, s, be, got, after)
				}
				total += after
				bound += ub[comp]
			}
			upper, lower := in.K()-pr.always-total, in.K()-pr.always-bound
			if lower > want || upper < want {
				t.Fatalf("%v s=%d %+v: [%d, %d] misses the exhaustive optimum %d", c, s, be, lower, upper, want)
			}
			if be.MaxNodes == 0 && upper != want {
				t.Fatalf("%v s=%d: CBC's optimum %d, exhaustive %d", c, s, upper, want)
			}
		}
	}
	t.Logf("%d component programs, %d with cuts, %d improved on their start", comps, withCuts, improved)
	if withCuts < 100 || improved == 0 {
		t.Errorf("only %d programs had cuts, %d improved: the test checks too little", withCuts, improved)
	}
}

// TestViolationsCBC: Violations with CBC as the backend (the search, then
// CBC with its cuts and schedule) proves the exhaustive optimum on random
// small instances, optional and forced.
func TestViolationsCBC(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 41))
	for i := 0; i < 150; i++ {
		c, s := randomContested(t, r, 6, 12, i%2 == 1)
		in := mustInstance(t, c)
		want := in.K() - exhaustive.MaxMeeting(c.tr, c.p, s)
		for _, opt := range []Options{{Backend: coin.CBC{}}, {Backend: coin.CBC{}, NoSearch: true}, {Backend: coin.CBC{}, NoSearch: true, NoLP: true}} {
			res, err := Violations(context.Background(), in, s, opt)
			if err != nil {
				t.Fatalf("%v s=%d: %v", c, s, err)
			}
			if !res.Proven || res.Upper != want {
				t.Fatalf("%v s=%d %+v: [%d, %d] proven %v (%s), exhaustive %d", c, s, opt, res.Lower, res.Upper, res.Proven, res.Detail, want)
			}
		}
	}
}

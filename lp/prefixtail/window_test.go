package prefixtail

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// TestWindowedHandWorked: the trace of TestHandWorked (B = 512, C = 4
// blocks, ξ = 200 tokens; OPT = 1,336) in two windows, requests {0, 1} and
// {2, 3, 4}. Lower: window 0 costs 1,336 whatever is cached (request 0 is
// a first use, request 1 is under ξ); window 1's relaxation carries
// blocks 1, 2, 3 from request 0 for free to step 2 and keeps them over
// steps 2 and 3 (3 blocks ≤ C − 1 = 3 at each), so request 4 hits all
// three and costs 0: lower = 1,336 = OPT. Upper: the restrictions cost
// 1,336 each (window 1 from an empty cache misses all of L), 2,672 in sum;
// the stitched schedule drops the intervals crossing step 2 — L's blocks
// (0, 4) and block 4's (1, 3) — so at request 2 the replay evicts a leaf
// of guide 0 by furthest next use: block 3 (next use 4) before block 4
// (next use 3). Request 4 then hits blocks 1 and 2, b = 512, cost 312:
// upper = 1,336 + 312 = 1,648, width 312/1,648.
func TestWindowedHandWorked(t *testing.T) {
	reqs := handTrace(t)
	for _, opt := range []Options{{}, {IP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}} {
		wb, err := Windowed(context.Background(), reqs, 512, 4, Objective{Kind: TEL, XiTokens: 200}, 2, WindowOptions{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if wb.Lower != 1336 || wb.Upper != 1648 || wb.Proven || math.Abs(wb.RelativeWidth-312.0/1648) > 1e-12 {
			t.Errorf("opt %+v: got %+v, want [1336, 1648]", opt, wb)
		}
		if w := wb.PerWindow; len(w) != 2 || w[0].Lower != 1336 || w[1].Lower != 0 || w[0].Restricted != 1336 || w[1].Restricted != 1336 || w[1].History != 2 {
			t.Errorf("opt %+v: windows %+v", opt, w)
		}
	}
}

// TestWindowedRapid: on random small chain traces with shared prefixes,
// any number of windows and any lower-bound solver, lower ≤ OPT ≤ upper
// with OPT from exhaustive search over eviction sequences (lp/exhaustive,
// written from the cache's rules); with one window and the exact IP the
// interval is OPT itself.
func TestWindowedRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := drawWindowCase(rt, 1, []int64{1, 2, 4, 16}, 12)
		block, reqs, capacity, obj, windows := c.block, c.reqs, c.capacity, c.obj, c.windows
		opts := []Options{{}, {IP: gonumlp.Backend{}}, {LP: gonumlp.Backend{}}, {Lagrange: &LagrangeOptions{}}}
		k := rapid.IntRange(0, len(opts)-1).Draw(rt, "solver")
		want := brute(t, reqs, capacity, block, obj)
		wb, err := Windowed(context.Background(), reqs, block, capacity, obj, windows, WindowOptions{}, opts[k])
		if err != nil {
			rt.Fatal(err)
		}
		if wb.Lower > want+1e-6 || wb.Upper < want-1e-6 {
			rt.Fatalf("interval [%v, %v] misses OPT %v (%d windows, solver %d)", wb.Lower, wb.Upper, want, windows, k)
		}
		if windows == 1 && k == 1 && (math.Abs(wb.Lower-want) > 1e-6 || math.Abs(wb.Upper-want) > 1e-6) {
			rt.Fatalf("one window with the IP: [%v, %v], OPT %v", wb.Lower, wb.Upper, want)
		}
	})
}

// windowCase is a random windowed instance of the rapid tests.
type windowCase struct {
	block    int64
	reqs     []prefixcache.Req
	capacity int
	obj      Objective
	windows  int
}

// drawWindowCase draws a windowed instance (its trace from a random
// source on stream): a block size of one of blocks tokens, a trace of
// 2…maxReqs requests over 4–16 nodes, a capacity of its longest chain plus
// 0–3 blocks, a TEL or SLO objective, and 1…n windows.
func drawWindowCase(rt *rapid.T, stream uint64, blocks []int64, maxReqs int) windowCase {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), stream))
	block := rapid.SampledFrom(blocks).Draw(rt, "block")
	reqs := randomTrace(r, rapid.IntRange(2, maxReqs).Draw(rt, "requests"), rapid.IntRange(4, 16).Draw(rt, "nodes"), block)
	capacity := longest(reqs) + rapid.IntRange(0, 3).Draw(rt, "extra")
	obj := randomObjective(r, rapid.SampledFrom([]Kind{TEL, SLO}).Draw(rt, "kind"), block)
	windows := rapid.IntRange(1, len(reqs)).Draw(rt, "windows")
	return windowCase{block, reqs, capacity, obj, windows}
}

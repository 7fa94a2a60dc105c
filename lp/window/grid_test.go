package window_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// grid runs window.RunPercentileGrid on tr in memory (the windows mine
// picks; nil: all).
func grid(tr *trace.Trace, p instance.Params, size, seam int, taus []int64, mine func(int) bool) ([]window.GridFigures, error) {
	return gridMode(tr, p, size, seam, 0, taus, mine, window.UpperFull)
}

// gridMode is grid with a lower overlap of back steps and the windows'
// upper ends searched as mode says.
func gridMode(tr *trace.Trace, p instance.Params, size, seam, back int, taus []int64, mine func(int) bool, mode window.SLOUpper) ([]window.GridFigures, error) {
	open := func() (window.TurnReader, func(), error) { return window.NewTurns(tr.Turns), func() {}, nil }
	return window.RunPercentileGrid(context.Background(), open, window.GridOptions{SLO: window.SLOOptions{Params: p, WindowTurns: size, SeamTurns: seam, LowerOverlap: back, Mine: mine, Upper: mode}, Taus: taus})
}

// randomTaus draws 1–4 ascending distinct thresholds in [0, 40] tokens.
func randomTaus(r *rand.Rand) []int64 {
	var taus []int64
	for k := 1 + r.IntN(4); k > 0; k-- {
		taus = append(taus, r.Int64N(41))
	}
	slices.Sort(taus)
	return slices.Compact(taus)
}

// TestGridBrute: on tiny traces the grid's interval contains the lowest
// percentile found by enumerating every schedule (lp/exhaustive), for
// every window size, seam and lower overlap (none, or half a window); each
// threshold decided "too low" lies below it and each "achieved" at or
// above it; and the figures of windows solved as three shards (Mine,
// disjoint) are the one process's, weighted bounds included, so their sum
// is the same interval.
func TestGridBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 33))
	decided := map[string]int{}
	for i := 0; i < 150; i++ {
		tr := &trace.Trace{}
		convs := 1 + r.IntN(3)
		for k := 1 + r.IntN(7); k > 0; k-- {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(20), r.Int64N(21))
		}
		block := int64(1 + r.IntN(4))
		p := instance.Params{Capacity: block * r.Int64N(5), BlockSize: block}
		qs := []string{"p50", "p75", "p90", "p99"}[r.IntN(4)]
		q, _ := objective.Parse(qs)
		want := bruteP(tr, p, qs)
		taus := randomTaus(r)
		if r.IntN(2) == 0 && want > 0 { // straddle the optimum
			taus = []int64{want - 1, want}
		}
		for size := 1; size <= len(tr.Turns); size++ {
			for _, sb := range [][2]int{{0, 0}, {2, 0}, {0, (size + 1) / 2}} {
				seam, back := sb[0], sb[1]
				figs, err := gridMode(tr, p, size, seam, back, taus, nil, window.UpperFull)
				if err != nil {
					t.Fatal(err)
				}
				if (figs[0].LowerWeighted != nil) != (back > 0) {
					t.Fatalf("case %d: lower overlap %d, weighted bounds %v", i, back, figs[0].LowerWeighted)
				}
				b, err := window.SumGrid(figs, taus, len(tr.Turns), q, size, seam)
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				if b.Lower > want || b.Upper < want {
					t.Fatalf("case %d, %s, %v, windows of %d, seams ±%d, lower overlap %d, τ %v: [%d, %d] misses %d", i, qs, p, size, seam, back, taus, b.Lower, b.Upper, want)
				}
				for _, pr := range b.Probes {
					decided[pr.Decided]++
					if pr.Decided == "too low" && pr.Tau >= want || pr.Decided == "achieved" && pr.Tau < want {
						t.Fatalf("case %d: probe %+v, optimum %d", i, pr, want)
					}
				}
				// three shards: windows w with w mod 3 = k
				shards := make([]window.GridFigures, len(figs))
				for k := 0; k < 3; k++ {
					part, err := gridMode(tr, p, size, seam, back, taus, func(w int) bool { return w%3 == k }, window.UpperFull)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range part {
						shards[f.Index] = f
					}
				}
				for j := range figs {
					figs[j].Seconds, shards[j].Seconds = 0, 0
				}
				if !reflect.DeepEqual(shards, figs) {
					t.Fatalf("case %d: shards' figures\n%+v\none process's\n%+v", i, shards, figs)
				}
			}
		}
	}
	if decided["too low"] == 0 || decided["achieved"] == 0 {
		t.Fatalf("decisions %v: the grid never decided both ways", decided)
	}
}

// TestGridHand is the trace of ExampleRunPercentile (x 1, a 10, a 5 more,
// y 1; B = 1, C = 10, p75 is the 3rd smallest of 4, M = 1): the optimum is
// 5 tokens. At τ = 4 every schedule has a's second turn (≥ 15 − 10 = 5)
// and a's first (10) above it: 2 > 1, too low. At τ = 5 the seam (±1
// step) carries a's 10 tokens, leaving only a's first turn above: 1 ≤ 1,
// achieved. At τ = 9 the same. The grid [4, 5, 9] closes the interval at
// 5; [9] alone gives [0, 9] (none too low); [4] alone [5, 15] (none
// achieved: the largest load, a's second turn's 10 + 5 tokens, is the
// upper end).
func TestGridHand(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "x", 1, 0)
	tr.Append(1, "a", 10, 0)
	tr.Append(2, "a", 5, 0)
	tr.Append(3, "y", 1, 0)
	p := instance.Params{Capacity: 10, BlockSize: 1}
	q, _ := objective.Parse("p75")
	for _, c := range []struct {
		taus   []int64
		lo, hi int64
		dec    []string
	}{
		{[]int64{4, 5, 9}, 5, 5, []string{"too low", "achieved", "achieved"}},
		{[]int64{9}, 0, 9, []string{"achieved"}},
		{[]int64{4}, 5, 15, []string{"too low"}},
	} {
		figs, err := grid(tr, p, 2, 1, c.taus, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := window.SumGrid(figs, c.taus, 4, q, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		var dec []string
		for _, pr := range b.Probes {
			dec = append(dec, pr.Decided)
		}
		if b.Lower != c.lo || b.Upper != c.hi || !slices.Equal(dec, c.dec) || b.Rank != 3 || b.MaxExceeding != 1 {
			t.Errorf("τ %v: [%d, %d] %v (rank %d, M %d), want [%d, %d] %v", c.taus, b.Lower, b.Upper, dec, b.Rank, b.MaxExceeding, c.lo, c.hi, c.dec)
		}
	}
}

// TestGridRefuses: thresholds not ascending, negative or missing, forced
// caching, and figures that do not cover the trace are errors.
func TestGridRefuses(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 3, 0)
	tr.Append(1, "a", 3, 0)
	p := instance.Params{Capacity: 4, BlockSize: 1}
	for _, taus := range [][]int64{nil, {3, 2}, {2, 2}, {-1}} {
		if _, err := grid(tr, p, 1, 0, taus, nil); err == nil {
			t.Errorf("τ %v: no error", taus)
		}
	}
	f := p
	f.Forced = true
	if _, err := grid(tr, f, 1, 0, []int64{1}, nil); err == nil {
		t.Error("forced caching: no error")
	}
	figs, err := grid(tr, p, 1, 0, []int64{1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := objective.Parse("p50")
	if _, err := window.SumGrid(figs[:1], []int64{1}, 2, q, 1, 0); err == nil {
		t.Error("one window of two summed: no error")
	}
	if _, err := window.SumGrid(figs, []int64{1, 2}, 2, q, 1, 0); err == nil {
		t.Error("figures at one threshold summed for two: no error")
	}
}

package window_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
	"pgregory.net/rapid"
)

// randomTrace is a trace of turns over convs conversations, prompts and
// responses up to 60 tokens.
func randomTrace(r *rand.Rand, turns, convs int) *trace.Trace {
	tr := &trace.Trace{}
	for k := range turns {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(60), r.Int64N(60))
	}
	return tr
}

// TestSkip: a Splitter that skips some windows hands out the others
// exactly as one that hands out every window: the same turns, histories,
// previous turns, turn before, and the same turns kept before it
// (Extended by its Lookback), whatever it skipped; Skip and Next agree on
// where the trace ends; and More, called anywhere in between, says
// whether a turn is left and changes none of it.
func TestSkip(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 7))
		tr := randomTrace(r, 1+r.IntN(300), 1+r.IntN(20))
		size := rapid.IntRange(1, 60).Draw(rt, "size")
		back := rapid.IntRange(0, 70).Draw(rt, "lookback")
		all, _ := window.NewSplitter(window.NewTurns(tr.Turns), size)
		some, _ := window.NewSplitter(window.NewTurns(tr.Turns), size)
		all.Lookback, some.Lookback = back, back
		for i := 0; ; i++ {
			want, errAll := all.Next()
			if rapid.Bool().Draw(rt, fmt.Sprint("more ", i)) {
				more, err := some.More()
				if err != nil || more != (i*size < len(tr.Turns)) {
					rt.Fatalf("before window %d (%d turns in all): More = %v, %v", i, len(tr.Turns), more, err)
				}
			}
			if rapid.Bool().Draw(rt, fmt.Sprint("skip ", i)) {
				if err := some.Skip(); !errors.Is(err, errAll) {
					rt.Fatalf("window %d: Skip returned %v, Next %v", i, err, errAll)
				}
			} else {
				got, err := some.Next()
				if !errors.Is(err, errAll) {
					rt.Fatalf("window %d: Next after skipping returned %v, without %v", i, err, errAll)
				}
				if err == nil && !reflect.DeepEqual(got.Extended(back), want.Extended(back)) {
					rt.Fatalf("window %d differs after skipping:\n%+v\n%+v", i, got.Extended(back), want.Extended(back))
				}
			}
			if errAll != nil {
				if !errors.Is(errAll, io.EOF) {
					rt.Fatal(errAll)
				}
				return
			}
		}
	})
}

// TestShardFigures: the windows that Mine picks (any set, as a shard's)
// get the figures the one process gives them, TEL and SLO, but for the
// time taken: a shard reads past the windows before its own (Skip) and
// solves the same problems.
func TestShardFigures(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 8))
		tr := randomTrace(r, 2+r.IntN(120), 2+r.IntN(10))
		size := rapid.IntRange(1, 40).Draw(rt, "size")
		seam := rapid.IntRange(0, 10).Draw(rt, "seam")
		back := rapid.IntRange(0, 20).Draw(rt, "overlap")
		p := instance.Params{Capacity: 4 * rapid.Int64Range(0, 20).Draw(rt, "blocks"), BlockSize: 4, Xi: 10.5}
		nw := (len(tr.Turns) + size - 1) / size
		picked := make([]bool, nw)
		for w := range picked {
			picked[w] = rapid.Bool().Draw(rt, fmt.Sprint("pick ", w))
		}
		mine := func(w int) bool { return w < nw && picked[w] }
		ctx := context.Background()
		o := window.Options{Params: p, WindowTurns: size, SeamTurns: seam, LowerOverlap: back, PerWindow: true}
		whole, err := window.Run(ctx, window.NewTurns(tr.Turns), o)
		if err != nil {
			rt.Fatal(err)
		}
		o.Mine = mine
		shard, err := window.Run(ctx, window.NewTurns(tr.Turns), o)
		if err != nil {
			rt.Fatal(err)
		}
		var want []window.Figures
		for _, f := range whole.PerWindow {
			if mine(f.Index) {
				want = append(want, f)
			}
		}
		if len(want) != len(shard.PerWindow) {
			rt.Fatalf("shard solved %d windows, picked %d", len(shard.PerWindow), len(want))
		}
		for i, f := range shard.PerWindow {
			f.Seconds = want[i].Seconds
			if f != want[i] {
				rt.Fatalf("TEL, window %d: shard %+v, one process %+v", want[i].Index, f, want[i])
			}
		}
		so := window.SLOOptions{Params: p, WindowTurns: size, SLOTokens: 20, SeamTurns: seam, PerWindow: true}
		wholeSLO, err := window.RunSLOWith(ctx, window.NewTurns(tr.Turns), so)
		if err != nil {
			rt.Fatal(err)
		}
		so.Mine = mine
		shardSLO, err := window.RunSLOWith(ctx, window.NewTurns(tr.Turns), so)
		if err != nil {
			rt.Fatal(err)
		}
		var wantSLO []window.SLOFigures
		for _, f := range wholeSLO.PerWindow {
			if mine(f.Index) {
				wantSLO = append(wantSLO, f)
			}
		}
		if len(wantSLO) != len(shardSLO.PerWindow) {
			rt.Fatalf("SLO shard solved %d windows, picked %d", len(shardSLO.PerWindow), len(wantSLO))
		}
		for i, f := range shardSLO.PerWindow {
			f.Seconds = wantSLO[i].Seconds
			if f != wantSLO[i] {
				rt.Fatalf("SLO, window %d: shard %+v, one process %+v", wantSLO[i].Index, f, wantSLO[i])
			}
		}
	})
}

package slo

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// targetProblem is the reduced SLO problem of the first 10^4 turns of the
// default birth–death workload at 1,900 tokens (C = 131,072 tokens,
// B = 16: thousands of candidates, enough for the search on several cores
// and for dozens of wide windows), with its greedy fill served.
func targetProblem(t *testing.T) (*problem, []bool) {
	pr := reduce(paperInstance(t, 10_000, 1), 1900)
	served := make([]bool, len(pr.cands))
	pr.improve(context.Background(), served)
	return pr, served
}

// A worker of the search on several cores counts toward its target the
// gains the others share (lnsOptions.gained): with the shared count
// already at the target it solves no window; one pair short, it stops at
// its first gain, which it adds to the count.
func TestLNSSharedTarget(t *testing.T) {
	pr, served := targetProblem(t)
	before := count(served)
	opt := defaultLNS()
	opt.target = before + 5
	var gained atomic.Int64
	opt.gained = &gained
	gained.Store(5)
	if st := pr.lns(context.Background(), served, nil, nil, opt); st.Windows != 0 || count(served) != before {
		t.Fatalf("with the others' gains at the target: %d windows, served %d → %d", st.Windows, before, count(served))
	}
	gained.Store(4)
	st := pr.lns(context.Background(), served, nil, nil, opt)
	checkNeverWorse(t, pr, served, before)
	if st.Gained == 0 || count(served)-before != st.Gained || gained.Load() != 4+int64(st.Gained) || st.Gained > maxFreeCap {
		t.Fatalf("one pair short: gained %d (served %d → %d), shared count %d", st.Gained, before, count(served), gained.Load())
	}
}

// With a target the search on two cores ends at it: past it by no more
// than the windows each worker was solving when the target was reached.
func TestLNSParallelStopsAtTarget(t *testing.T) {
	pr, served := targetProblem(t)
	if len(pr.cands) < parallelMinCandidates {
		t.Fatalf("%d candidates, fewer than the %d of the search on several cores", len(pr.cands), parallelMinCandidates)
	}
	before := count(served)
	const more = 3
	opt := defaultLNS()
	opt.windows, opt.target = 0, before+more
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr.lnsParallel(ctx, served, nil, opt, 2)
	checkNeverWorse(t, pr, served, before)
	if ctx.Err() != nil {
		t.Fatalf("the search ran to its time limit for %d pairs", more)
	}
	if got := count(served); got < opt.target || got > opt.target+2*maxFreeCap {
		t.Fatalf("served %d with a target of %d", got, opt.target)
	}
}

// With a target a sweep of wide windows ends once the served set reaches
// it, leaving windows of its pass unsolved, where the control (no target)
// solves every window at least once.
func TestWideSweepStopsAtTarget(t *testing.T) {
	pr, served := targetProblem(t)
	before := count(served)
	par := wideParallel{workers: 2, chains: 4}
	opt := wideOptions{nodeLimit: wideNodes, dom: true, rcFix: true, branchHigh: true, oneRule: true}
	ctx := context.Background()
	sw := pr.newWideSweeper(wideSegments, wideSegments/2, opt, par)
	if len(sw.wins) < 10 {
		t.Fatalf("%d wide windows: too few for the test", len(sw.wins))
	}
	sw.target = before + 1
	res, err := sw.sweep(ctx, ctx, served, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkNeverWorse(t, pr, served, before)
	if count(served) < sw.target {
		t.Fatalf("served %d, target %d", count(served), sw.target)
	}
	if res.Windows >= len(sw.wins) {
		t.Fatalf("%d windows solved of %d: the sweep went on past its target", res.Windows, len(sw.wins))
	}
}

//go:build coin

package coin

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/lp"
)

// overrun is how far past its time limit a solve may return: CBC checks
// the clock between nodes and after its preprocessing and cut passes, and
// the machine is shared, so the tests allow one second on top of limits
// of half a second.
const overrun = time.Second

// TestCBCTimeLimit runs CBC on a market-split instance with 4 rows and 30
// binaries, which branch and bound does not finish in seconds, under a
// time limit given as an option and as a context deadline.
func TestCBCTimeLimit(t *testing.T) {
	p := marketSplit(4, 30, 7)
	const lim = 500 * time.Millisecond
	for _, c := range []struct {
		name string
		opt  lp.Options
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"option", lp.Options{TimeLimit: lim}, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}},
		{"deadline", lp.Options{TimeLimit: time.Hour}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), lim)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			t0 := time.Now()
			sol, err := CBC{}.Solve(ctx, p, c.opt)
			wall := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			if sol.Status != lp.TimeLimit {
				t.Fatalf("status %v (%s), want %v", sol.Status, sol.Detail, lp.TimeLimit)
			}
			if wall > lim+overrun {
				t.Errorf("returned after %v with a limit of %v", wall, lim)
			}
			if sol.X != nil {
				// A best integer point found in time: it must be feasible
				// and its objective must be the one reported.
				checkPoint(t, p, sol.X, sol.Obj, true)
			}
			t.Logf("%v after %v: %s", sol.Status, wall, sol.Detail)
		})
	}
}

// TestCLPTimeLimit gives CLP a nanosecond on an LP that takes it
// thousands of pivots as given (Direct: the compact reduction leaves CLP's
// presolve nothing to pivot on this one), and checks the reduced solve
// honours the limit too.
func TestCLPTimeLimit(t *testing.T) {
	p := intervalLP(5000, 20, 1)
	red, err := CLP{}.Solve(context.Background(), p, lp.Options{TimeLimit: time.Nanosecond})
	if err != nil || red.Status != lp.TimeLimit || red.X != nil {
		t.Fatalf("reduced: status %v (%s), point %v, %v; want %v without a point", red.Status, red.Detail, red.X != nil, err, lp.TimeLimit)
	}
	sol, err := CLP{Direct: true}.Solve(context.Background(), p, lp.Options{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != lp.TimeLimit || sol.X != nil {
		t.Fatalf("status %v (%s), point %v; want %v without a point", sol.Status, sol.Detail, sol.X != nil, lp.TimeLimit)
	}
	full, err := CLP{Direct: true}.Solve(context.Background(), p, lp.Options{})
	if err != nil || full.Status != lp.Optimal || full.Iterations < 1000 {
		t.Fatalf("without a limit: %v, %v, %d iterations", full.Status, err, full.Iterations)
	}
}

// TestCBCRootLimit gives CBC a nanosecond on a MIP whose LP relaxation
// takes CLP thousands of pivots: CBC's own limit would not stop its root
// LP, the relaxation run first does, and the answer says where it stopped.
func TestCBCRootLimit(t *testing.T) {
	p := intervalLP(5000, 20, 1)
	p.Integer = make([]bool, p.NumCols)
	for j := 0; j < 5000; j++ {
		p.Integer[j] = true
	}
	t0 := time.Now()
	sol, err := CBC{}.Solve(context.Background(), p, lp.Options{TimeLimit: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != lp.TimeLimit || sol.X != nil || !strings.Contains(sol.Detail, "LP relaxation") {
		t.Fatalf("status %v (%s), point %v; want %v in the LP relaxation without a point", sol.Status, sol.Detail, sol.X != nil, lp.TimeLimit)
	}
	if wall := time.Since(t0); wall > overrun {
		t.Errorf("returned after %v", wall)
	}
}

// TestRootOutcome checks which relaxation outcomes end a time-limited MIP
// solve before branch and bound.
func TestRootOutcome(t *testing.T) {
	for _, c := range []struct {
		root lp.Status
		ok   bool
		want lp.Status
	}{
		{lp.Optimal, true, 0},
		{lp.Unbounded, true, 0},
		{lp.Infeasible, false, lp.Infeasible},
		{lp.TimeLimit, false, lp.TimeLimit},
		{lp.IterationLimit, false, lp.IterationLimit},
		{lp.Numerical, false, lp.Numerical},
	} {
		stop, ok := rootOutcome(lp.Solution{Status: c.root, Detail: "x"})
		if ok != c.ok || (!ok && (stop.Status != c.want || stop.X != nil || stop.Detail == "")) {
			t.Errorf("rootOutcome(%v) = %+v, %v", c.root, stop, ok)
		}
	}
}

// TestCBCWorkerKilled gives CBC 1.5 s on the compact program of 10^4
// birth–death turns (B = 16), which it solves in about 7 s: the LP
// relaxation fits in the limit, CBC's own root (LP, cuts, heuristics) does
// not check the clock, so only killing the worker keeps the limit. The
// answer must come within the limit plus workerGrace plus half a second
// for a shared machine, as TimeLimit, with any point it gives feasible.
// Cancelling the context instead ends the solve at once with its error.
func TestCBCWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of CBC")
	}
	in := compactInstance(t, 10000, 1, 131072, 16, 300)
	p := lp.BuildCompact(in, lp.BuildOptions{}).Problem
	const lim = 1500 * time.Millisecond
	t0 := time.Now()
	sol, err := CBC{}.Solve(context.Background(), p, lp.Options{TimeLimit: lim})
	wall := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Status != lp.TimeLimit {
		t.Fatalf("status %v (%s), want %v", sol.Status, sol.Detail, lp.TimeLimit)
	}
	if wall > lim+workerGrace+500*time.Millisecond {
		t.Errorf("returned after %v with a limit of %v", wall, lim)
	}
	if sol.X != nil {
		checkPoint(t, p, sol.X, sol.Obj, true)
	}
	t.Logf("%v after %v: %s", sol.Status, wall, sol.Detail)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t0 = time.Now()
	_, err = CBC{}.Solve(ctx, p, lp.Options{TimeLimit: time.Minute})
	if wall := time.Since(t0); !errors.Is(err, context.Canceled) || wall > time.Second {
		t.Errorf("cancelled after 0.3 s: %v after %v, want %v at once", err, wall, context.Canceled)
	}
}

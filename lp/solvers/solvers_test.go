package solvers

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

var long = flag.Bool("solvers.long", false, "run thousands of random instances instead of hundreds")

// tol is the TEL tolerance, tokens: TELs are sums of a few dozen terms with
// quarter-token fractions (exact in float64); LP solvers are accurate to
// about 1e-9 relative.
const tol = 1e-6

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func randomInstance(t testing.TB, r *rand.Rand, block int64, forced bool) *lp.Instance {
	t.Helper()
	tr := &trace.Trace{}
	convs := 1 + r.IntN(4)
	for k := 2 + r.IntN(12); k > 0; k-- {
		tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(6*block), r.Int64N(6*block))
	}
	xis := []float64{0, 2, 5, 0.5, 3.25, -2, 9}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: block * r.Int64N(10), BlockSize: block, Xi: xis[r.IntN(len(xis))], Forced: forced})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// entries returns the solvers of this build but auto, which resolves to
// one of them.
func entries() []Entry {
	var out []Entry
	for _, e := range Default().Entries() {
		if e.Name != Auto && e.Available() {
			out = append(out, e)
		}
	}
	return out
}

// programs is the kind of program solved with or without relax.
func programs(relax bool) Programs {
	if relax {
		return LP
	}
	return IP
}

// coinBuild reports whether this build has the COIN-OR backends.
func coinBuild() bool {
	e, err := Lookup("clp")
	return err == nil && e.Available()
}

// TestBackendsAgree: on random instances with B = 1..8 every solver of
// this build (gonum and flow; clp and cbc with -tags coin) solves the
// compact and paper formulations, each program it solves; integer optima
// equal the flow optimum, LP bounds agree across solvers and formulations.
func TestBackendsAgree(t *testing.T) {
	n := 200
	if *long {
		n = 3000
	}
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	below := 0
	for i := 0; i < n; i++ {
		in := randomInstance(t, r, int64(1+i%8), i%5 == 4)
		fl, err := lp.SolveFlow(ctx, in, lp.Options{})
		if err != nil || fl.Status != lp.Optimal {
			t.Fatalf("instance %d: flow %v %v", i, err, fl)
		}
		lpBound := math.NaN()
		for _, f := range []lp.Formulation{lp.Compact, lp.Paper} {
			for _, b := range entries() {
				for _, relax := range []bool{false, true} {
					if b.Solves&programs(relax) == 0 {
						continue
					}
					res, err := Solve(ctx, in, f, b.Name, relax, lp.Options{})
					if err != nil {
						t.Fatalf("instance %d %s %s relax=%v: %v", i, f, b.Name, relax, err)
					}
					if res.Status == lp.TooLarge {
						continue
					}
					if res.Status != lp.Optimal {
						t.Fatalf("instance %d %s %s relax=%v: %v %s", i, f, b.Name, relax, res.Status, res.Detail)
					}
					if !relax {
						if !near(res.TEL, fl.TEL) || res.ScheduleErr != nil || !near(res.ScheduleTEL, fl.TEL) {
							t.Fatalf("instance %d %s %s: IP %v (schedule %v, %v), flow %v", i, f, b.Name, res.TEL, res.ScheduleTEL, res.ScheduleErr, fl.TEL)
						}
						continue
					}
					if math.IsNaN(lpBound) {
						lpBound = res.TEL
					} else if !near(res.TEL, lpBound) {
						t.Fatalf("instance %d %s %s: LP %v, other LP %v", i, f, b.Name, res.TEL, lpBound)
					}
					if res.TEL > fl.TEL+tol {
						t.Fatalf("instance %d: LP %v above the IP optimum %v", i, res.TEL, fl.TEL)
					}
				}
			}
		}
		if !math.IsNaN(lpBound) && !near(lpBound, fl.TEL) {
			below++
		}
	}
	t.Logf("backends %v; %d instances, the LP relaxation below the flow optimum on %d", Names(), n, below)
}

// TestPickAndNames: names resolve to themselves, auto by its rules; a
// solver asked for a program it does not solve, an unknown name or one
// this build lacks is refused, by Pick or by the solver.
func TestPickAndNames(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "a", 3, 1)
	tr.Append(1, "a", 2, 0)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 4, BlockSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	type pickCase struct {
		name  string
		relax bool
		want  string
		fails bool
	}
	cases := []pickCase{
		{"flow", false, "flow", false},
		{"flow", true, "", true},
		{"gonum", true, "gonum", false},
		{"nonsense", false, "", true},
	}
	if coinBuild() {
		cases = append(cases, pickCase{"auto", true, "clp", false}, pickCase{"auto", false, "cbc", false})
	} else {
		cases = append(cases, pickCase{"auto", false, "gonum", false}, pickCase{"clp", true, "", true})
	}
	for _, c := range cases {
		task := lp.NewTask(in, lp.Compact, c.relax)
		got, s, err := Pick(c.name, task)
		if err == nil {
			_, err = s.Solve(context.Background(), task, lp.Options{})
		}
		if (err != nil) != c.fails || !c.fails && got != c.want {
			t.Errorf("Pick(%q, relax=%v) = %q, %v; want %q (fails %v)", c.name, c.relax, got, err, c.want, c.fails)
		}
	}
}

// TestAutoLargeCompactIsFlow: a compact integer program beyond
// AutoCBCMaxCols goes to flow in every build (gonum refuses it, CBC would
// not finish), its LP relaxation does not.
func TestAutoLargeCompactIsFlow(t *testing.T) {
	tr := &trace.Trace{}
	for k := 0; k < AutoCBCMaxCols; k++ {
		tr.Append(float64(k), string(rune('a'+k%7)), 3, 1)
	}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 8, BlockSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := lp.NewTask(in, lp.Compact, false).Model()
	if err != nil {
		t.Fatal(err)
	}
	if m.Problem.NumCols <= AutoCBCMaxCols {
		t.Fatalf("instance too small: %d columns", m.Problem.NumCols)
	}
	if got, _, err := Pick(Auto, lp.NewTask(in, lp.Compact, false)); err != nil || got != Flow {
		t.Errorf("auto IP: %q %v, want flow", got, err)
	}
	got, _, err := Pick(Auto, lp.NewTask(in, lp.Compact, true))
	if coinBuild() && (err != nil || got != "clp") {
		t.Errorf("auto LP with coin: %q %v, want clp", got, err)
	}
	if !coinBuild() && err == nil {
		t.Errorf("auto LP without coin: %q, want a refusal (gonum too small, flow has no plain relaxation)", got)
	}
}

// TestHelp: the help texts list every registered solver of the programs
// asked, in registry order, and this build's.
func TestHelp(t *testing.T) {
	here := "auto,gonum,flow"
	hereIP := "auto,gonum,flow"
	if coinBuild() {
		here, hereIP = "auto,clp,cbc,gonum,flow", "auto,cbc,gonum,flow"
	}
	for _, c := range []struct {
		p    Programs
		want string
	}{
		{IP | LP, "auto|clp|cbc|gonum|flow (this build: " + here + ")"},
		{IP, "auto|cbc|gonum|flow (this build: " + hereIP + ")"},
	} {
		if got := Help(c.p); got != c.want {
			t.Errorf("Help(%d) = %q, want %q", c.p, got, c.want)
		}
	}
	if err := Default().Add(Entry{Name: Flow, New: func() (lp.Solver, error) { return lp.FlowSolver{}, nil }}); err == nil {
		t.Error("a second flow was registered")
	}
	if e, ok := Find("cbc"); !ok || e.RelaxBy != Auto {
		t.Errorf("Find(cbc) = %+v, %v; want an entry whose relaxations go to auto", e, ok)
	}
}

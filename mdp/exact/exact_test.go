package exact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// TestHandWorked: one seat of rate 1/s, Δ = 0.25 s (a turn in the next
// step with probability 0.25·π(silence)), μ = 1/s, history 3 tokens just
// served, C = 2, B = 1, ξ = 0, prompt 1, response 0. Keeping 2 tokens is
// optimal at every turn. Over two steps (Paper world):
//
//	step 1: turn w.p. 0.25, cost 3+1−2 = 2; then step 2 after that turn
//	        (history 4, silence 0): turn w.p. 0.25, cost 4+1−2 = 3;
//	        no turn in step 1 (0.75): step 2 at silence 1: turn w.p.
//	        0.25·e^{−0.25}, cost 2.
//
// Value = 0.25·(2 + 0.25·3) + 0.75·0.25·e^{−0.25}·2.
func TestHandWorked(t *testing.T) {
	in := &Instance{World: Paper, Seats: []Seat{{Rate: 1, History: 3, Cached: 0}}, Served: 0, Mu: 1, Step: 0.25,
		Horizon: 2, Params: instance.Params{Capacity: 2, BlockSize: 1, Xi: 0},
		Prompt: birthdeath.Atoms{Values: []int64{1}, Probs: []float64{1}}, Response: birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}}
	want := 0.25*(2+0.25*3) + 0.75*0.25*math.Exp(-0.25)*2
	res, err := Solve(in)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Value-want) > 1e-12 || res.Decision[0] != 2 {
		t.Errorf("value %v decision %v, want %v and [2]", res.Value, res.Decision, want)
	}
	// Bayes world, horizon 1: the turn probability at silence 0 is 0.25
	// (the conversation is surely alive right after its turn).
	in.World, in.Horizon = Bayes, 1
	if res, _ := Solve(in); math.Abs(res.Value-0.5) > 1e-12 {
		t.Errorf("bayes, one step: %v, want 0.5", res.Value)
	}
}

// randomInstance draws a tiny instance for the brute-force and Monte Carlo
// comparisons.
func randomInstance(r *rand.Rand, seats, horizon int) *Instance {
	in := &Instance{World: World(r.IntN(2)), Mu: 0.2 + r.Float64(), Step: 0.25, Horizon: horizon,
		Params: instance.Params{BlockSize: int64(1 + r.IntN(2)), Xi: float64(r.IntN(4)) + []float64{0, 0.5}[r.IntN(2)]}}
	in.Capacity = in.BlockSize * int64(1+r.IntN(4))
	if r.IntN(3) == 0 {
		in.MaxTurns = 1 + r.IntN(3)
	}
	if r.IntN(3) == 0 {
		in.Discount = 0.8 + 0.2*r.Float64()
	}
	in.Forced = r.IntN(4) == 0
	if r.IntN(3) == 0 {
		in.Birth = 1
	}
	in.Prompt = birthdeath.Atoms{Values: []int64{int64(r.IntN(3)), int64(1 + r.IntN(4))}, Probs: []float64{0.5, 0.5}}
	in.Response = birthdeath.Atoms{Values: []int64{int64(r.IntN(2))}, Probs: []float64{1}}
	in.Served = r.IntN(seats+1) - 1
	var used int64
	for i := 0; i < seats; i++ {
		s := Seat{Rate: 0.5 + 0.8*r.Float64()}
		if i == in.Served || r.IntN(4) > 0 {
			s.History = int64(1 + r.IntN(6))
			if i != in.Served {
				s.Silence = 1 + r.IntN(4)
				room := min(s.History, in.Capacity-used) / in.BlockSize
				s.Cached = in.BlockSize * int64(r.IntN(int(room)+1))
				used += s.Cached
			}
		}
		in.Seats = append(in.Seats, s)
	}
	return in
}

// TestSolveMatchesBruteForce: the memoized solver and the expectimax over
// the unmerged event tree agree to 1e-9 relative on 300 random instances
// of 1–3 seats and up to 5, 4, 3 steps.
func TestSolveMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 300
	if testing.Short() {
		n = 60
	}
	for k := 0; k < n; k++ {
		seats := 1 + r.IntN(3)
		in := randomInstance(r, seats, 1+r.IntN(6-seats))
		res, err := Solve(in)
		if err != nil {
			t.Fatal(err)
		}
		bf, err := BruteForce(in)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Value-bf) > 1e-9*(1+bf) {
			t.Fatalf("instance %d: solver %.12g, brute force %.12g: %+v", k, res.Value, bf, in)
		}
		// The optimum is a lower bound on every policy.
		for _, d := range []Decider{LRU{}, TLRU{QHat: 2}, ETLRU{Belief: Paper}, ETLRU{Belief: Bayes}} {
			ev, err := Evaluate(in, d)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Value < res.Value-1e-9*(1+res.Value) {
				t.Fatalf("instance %d: %s %.12g below the optimum %.12g", k, d.Name(), ev.Value, res.Value)
			}
		}
	}
}

// TestEvaluateMatchesMonteCarlo: each policy's exact value lies within 4
// standard errors of the mean of 20000 sampled paths (a false failure has
// probability below 10⁻⁴ per comparison), on the default instances.
func TestEvaluateMatchesMonteCarlo(t *testing.T) {
	reps := 20000
	if testing.Short() {
		reps = 4000
	}
	for _, w := range []World{Paper, Bayes} {
		in := Default(2, w)
		in.Birth = 0.5
		for _, d := range []Decider{LRU{}, TLRU{QHat: 2}, ETLRU{Belief: w}} {
			ev, err := Evaluate(in, d)
			if err != nil {
				t.Fatal(err)
			}
			mc, err := Simulate(in, d, reps, 3)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(mc.Mean-ev.Value) > 4*mc.StdErr {
				t.Errorf("%s world %s: exact %.5f, Monte Carlo %.5f ± %.5f", d.Name(), w, ev.Value, mc.Mean, 4*mc.StdErr)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []func(in *Instance){
		func(in *Instance) { in.Step = 2 }, // per-step probabilities above 1
		func(in *Instance) { in.Capacity = 7; in.BlockSize = 2 },
		func(in *Instance) { in.Seats[1].Cached = 9 },
		func(in *Instance) { in.Served = 1 }, // silence 2
		func(in *Instance) { in.Prompt.Probs = []float64{0.5, 0.4} },
		func(in *Instance) { in.Seats = nil },
		func(in *Instance) { in.Prefix = []PrefixTurn{{Seat: 0, Before: 1}} },
	}
	for i, f := range bad {
		in := Default(2, Paper)
		f(in)
		if err := in.Validate(); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	if err := Default(3, Bayes).Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}

// BenchmarkSolve reports the state-space size and time of the optimal
// solver on the default instances with 2 and 3 seats.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{2, 3} {
		for _, w := range []World{Paper, Bayes} {
			b.Run(w.String()+"-"+string(rune('0'+n))+"seats", func(b *testing.B) {
				var states int
				start := time.Now()
				for i := 0; i < b.N; i++ {
					res, err := Solve(Default(n, w))
					if err != nil {
						b.Fatal(err)
					}
					states = res.States
				}
				b.ReportMetric(float64(states), "states")
				b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/solve")
			})
		}
	}
}

// TestStateBound: a solve whose memo passes MaxStates stops with an error
// naming the bound, promptly; under the bound the value is unchanged.
func TestStateBound(t *testing.T) {
	in := Default(1, Paper)
	full, err := Solve(in)
	if err != nil {
		t.Fatal(err)
	}
	in.MaxStates = full.States // exactly enough
	again, err := Solve(in)
	if err != nil || again.Value != full.Value {
		t.Errorf("at the bound %d: %v, %v; want %v", full.States, again.Value, err, full.Value)
	}
	in.MaxStates = full.States - 1
	if _, err := Solve(in); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("passed %d states", full.States-1)) {
		t.Errorf("one state short: %v", err)
	}
}

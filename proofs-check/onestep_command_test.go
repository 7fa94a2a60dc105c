package proofscheck

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// solveCommand runs a printed 'tailbound mdp solve' line in process: it
// reads the flags the way the command does (exact.ParseWorld, ParseSeats,
// ParseDist) and compares the optimum with the named policies
// (exact.Compare). It returns the rows by name and Δ (--step, seconds).
func solveCommand(t *testing.T, cmd string) (map[string]exact.Row, float64) {
	t.Helper()
	args, ok := strings.CutPrefix(cmd, "tailbound mdp solve ")
	if !ok {
		t.Fatalf("not an mdp solve line: %q", cmd)
	}
	f := strings.Fields(args)
	flags := map[string]string{}
	for i := 0; i < len(f); i++ {
		name := strings.TrimPrefix(f[i], "--")
		if i+1 < len(f) && !strings.HasPrefix(f[i+1], "--") {
			flags[name] = f[i+1]
			i++
		} else {
			flags[name] = "true"
		}
	}
	num := func(k string) float64 {
		v, err := strconv.ParseFloat(flags[k], 64)
		if err != nil {
			t.Fatalf("%s: --%s %q: %v", cmd, k, flags[k], err)
		}
		return v
	}
	in := exact.Instance{Served: int(num("served")), Mu: num("mu"), Birth: num("birth"), Step: num("step"),
		Horizon: int(num("horizon")), MaxTurns: int(num("max-turns")), Discount: num("discount"),
		Params: instance.Params{Capacity: int64(num("capacity")), BlockSize: int64(num("block-size")), Xi: num("xi-tokens"), Forced: flags["forced"] == "true"}}
	var err error
	if in.World, err = exact.ParseWorld(flags["world"]); err != nil {
		t.Fatal(err)
	}
	if in.Seats, err = exact.ParseSeats(flags["seats"]); err != nil {
		t.Fatal(err)
	}
	if in.Prompt, err = exact.ParseDist(flags["prompt"]); err != nil {
		t.Fatal(err)
	}
	if in.Response, err = exact.ParseDist(flags["response"]); err != nil {
		t.Fatal(err)
	}
	for _, v := range in.Prompt.Values {
		if v == 0 && flags["allow-empty-prompts"] != "true" {
			t.Fatalf("%s: a prompt of 0 tokens without --allow-empty-prompts", cmd)
		}
	}
	ds, err := exact.Deciders(flags["policies"], in.Prompt.Mean())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := exact.Compare(&in, ds)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	byName := map[string]exact.Row{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	return byName, in.Step
}

// TestOneStepCommandByHand: two items, C = 2, B = 1, ξ = 0, prompts of 1
// token. Item 0 (λ = 1/s, H = 3, caching 2) and item 1 (λ = 0.5/s, H = 2,
// just served: may keep its 2). Keeping (y0, y1) costs 1·(4 − y0) +
// 0.5·(3 − y1): (2,0) 3.5, (1,1) 4, (0,2) 4.5. The greedy evicts item 1's
// blocks (marginal value 0.5 < 1) and keeps (2,0), the optimum. Σλ = 1.5,
// so Δ = 0.5 s and mdp solve prints 1.75 for both.
func TestOneStepCommandByHand(t *testing.T) {
	o := &OneStep{Weights: []float64{1, 0.5}, History: []int64{3, 2}, Upper: []int64{2, 2}, Fixed: []bool{false, false},
		Params: instance.Params{Capacity: 2, BlockSize: 1, Xi: 0}, Prompt: []int64{1}, Probs: []float64{1}}
	want := "tailbound mdp solve --world paper --seats 1:3:2:0,0.5:2:2:0 --served 1 --mu 1 --birth 0 --step 0.5 --horizon 1 --max-turns 1 " +
		"--capacity 2 --block-size 1 --xi-tokens 0 --prompt pmf:1:1 --response pmf:0:1 --discount 1 --policies etlru-paper"
	if got := o.Command(); got != want {
		t.Fatalf("command\n%s\nwant\n%s", got, want)
	}
	rows, step := solveCommand(t, o.Command())
	for _, name := range []string{"optimum", "etlru-paper"} {
		r := rows[name]
		if math.Abs(r.Value-1.75) > 1e-12 || len(r.Decision) != 2 || r.Decision[0] != 2 || r.Decision[1] != 0 {
			t.Errorf("%s: expected TEL %v, decision %v; want 1.75 = 0.5·3.5, [2 0]", name, r.Value, r.Decision)
		}
	}
	if step != 0.5 {
		t.Errorf("Δ = %v s, want 0.5", step)
	}
}

// TestOneStepCommandReproduces: on random one-step problems (the claim's
// generator), every command printed reproduces the claim's two sides: its
// optimum row is Δ times the dynamic program's optimum and its etlru-paper
// row Δ times the greedy's objective. Problems the MDP cannot state print
// an mdp onestep line instead (TestOneStepEveryCommand); enough can for
// the test to mean something.
func TestOneStepCommandReproduces(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 4))
	var stated, evicting, forced, births int
	for k := 0; k < 1000; k++ {
		o := RandomOneStep(r, 4)
		p, err := o.Problem()
		if err != nil {
			t.Fatal(err)
		}
		cmd := o.Command()
		if !strings.HasPrefix(cmd, "tailbound mdp solve ") {
			continue // an mdp onestep line: TestOneStepEveryCommand
		}
		stated++
		if strings.Contains(cmd, " --forced") {
			forced++ // a fixed item, served under forced caching
		}
		if !strings.Contains(cmd, " --birth 0 ") {
			births++ // items with no history, as empty seats
		}
		y, err := etlru.Greedy(p)
		if err != nil {
			t.Fatal(err)
		}
		_, best, err := etlru.Exact(p)
		if err != nil {
			t.Fatal(err)
		}
		g := p.Objective(y)
		rows, step := solveCommand(t, cmd)
		if opt := rows["optimum"].Value / step; math.Abs(opt-best) > objTol(best) {
			t.Errorf("%s: optimum %v/Δ = %v, the dynamic program %v", cmd, rows["optimum"].Value, opt, best)
		}
		if et := rows["etlru-paper"].Value / step; math.Abs(et-g) > objTol(g) {
			t.Errorf("%s: etlru-paper %v/Δ = %v, the greedy's objective %v", cmd, rows["etlru-paper"].Value, et, g)
		}
		if d := rows["etlru-paper"].Decision; d != nil {
			for i := range y {
				if d[i] != y[i] {
					t.Errorf("%s: etlru-paper keeps %v, the greedy %v", cmd, d, y)
					break
				}
			}
		}
		var total int64
		for _, u := range o.Upper {
			total += u
		}
		if total > o.Capacity {
			evicting++
		}
	}
	// About 40 % of these problems have a command, 5 % one that evicts;
	// some with a fixed item, some with empty seats.
	if stated < 250 || evicting < 20 || forced < 5 || births < 5 {
		t.Errorf("%d of 1000 problems have a command, %d evicting, %d forced, %d with empty seats; want ≥ 250, 20, 5, 5", stated, evicting, forced, births)
	}
}

// TestOneStepCommandNone: problems the one-step MDP cannot state — more to
// evict than a served item holds (4 tokens in 3, and neither item at its
// whole history, so neither was just served), or two fixed items — have
// the mdp onestep line, which states them whole.
func TestOneStepCommandNone(t *testing.T) {
	over := &OneStep{Weights: []float64{1, 1}, History: []int64{5, 5}, Upper: []int64{2, 2}, Fixed: []bool{false, false},
		Params: instance.Params{Capacity: 3, BlockSize: 1}, Prompt: []int64{1}, Probs: []float64{1}}
	two := &OneStep{Weights: []float64{1, 1}, History: []int64{1, 1}, Upper: []int64{1, 1}, Fixed: []bool{true, true},
		Params: instance.Params{Capacity: 2, BlockSize: 1}, Prompt: []int64{1}, Probs: []float64{1}}
	want := []string{"tailbound mdp onestep --items 1:5:2,1:5:2 --capacity 3 --block-size 1 --xi-tokens 0 --prompt pmf:1:1",
		"tailbound mdp onestep --items 1:1:1:fixed,1:1:1:fixed --capacity 2 --block-size 1 --xi-tokens 0 --prompt pmf:1:1"}
	for k, o := range []*OneStep{over, two} {
		if c := o.Command(); c != want[k] {
			t.Errorf("%+v: command\n%s\nwant\n%s", o, c, want[k])
		}
	}
}

// TestUnitPageCommandByHand: pages of rates 0.3, 0.9, 0.5 per s, all
// cached, room for two. ET-LRU and the top-λ rule keep the 0.9 and 0.5
// pages, [0 1 1]; the next turn then misses one token with probability
// 0.3·Δ, Δ = 0.5 s (Σλ = 1.7): expected TEL 0.15 tokens.
func TestUnitPageCommandByHand(t *testing.T) {
	u := &UnitPage{Weights: []float64{0.3, 0.9, 0.5}, Cached: []bool{true, true, true}, Capacity: 2}
	rows, _ := solveCommand(t, u.Command())
	for _, name := range []string{"optimum", "etlru-paper"} {
		r := rows[name]
		if math.Abs(r.Value-0.15) > 1e-12 || len(r.Decision) != 3 || r.Decision[0] != 0 || r.Decision[1] != 1 || r.Decision[2] != 1 {
			t.Errorf("%s: expected TEL %v, decision %v; want 0.15, [0 1 1]", name, r.Value, r.Decision)
		}
	}
	// Four cached pages and room for two: one served page cannot bring two
	// pages over the capacity, so the mdp onestep line. Both rows keep the
	// 0.9 and 0.5 pages; the objective is Σ λ of the others, 0.3 + 0.1 =
	// 0.4 tokens/s.
	four := &UnitPage{Weights: []float64{0.3, 0.9, 0.5, 0.1}, Cached: []bool{true, true, true, true}, Capacity: 2}
	if c, want := four.Command(), "tailbound mdp onestep --items 0.3:1:1,0.9:1:1,0.5:1:1,0.1:1:1 --capacity 2 --block-size 1 --xi-tokens 0 --prompt pmf:0:1"; c != want {
		t.Errorf("command\n%s\nwant\n%s", c, want)
	}
	s := oneStepCommand(t, four.Command())
	for _, y := range [][]int64{s.Greedy, s.Optimum} {
		if !slices.Equal(y, []int64{0, 1, 1, 0}) {
			t.Errorf("keeps %v, want [0 1 1 0]", y)
		}
	}
	if math.Abs(s.GreedyObjective-0.4) > 1e-12 || math.Abs(s.OptimumObjective-0.4) > 1e-12 {
		t.Errorf("objectives %v and %v tokens/s, want 0.4", s.GreedyObjective, s.OptimumObjective)
	}
}

// TestUnitPageCommandReproduces: on the claim's random unit-page problems,
// every command printed shows ET-LRU keeping the claim's greedy's pages and
// the optimum keeping the top-λ pages the claim compares them with.
func TestUnitPageCommandReproduces(t *testing.T) {
	c := corollaryUnitPage(Sizes{Items: 4})
	r := rand.New(rand.NewPCG(17, 5))
	stated := 0
	for k := 0; k < 300; k++ {
		u := c.Generate(r).(*UnitPage)
		cmd := u.Command()
		if !strings.HasPrefix(cmd, "tailbound mdp solve ") {
			continue // an mdp onestep line: TestUnitPageEveryCommand
		}
		stated++
		rows, step := solveCommand(t, cmd)
		// The top-λ pages: kept pages' rates sum to the most any set of
		// min(C, #cached) cached pages can; the expected TEL is Δ·Σ λ of the
		// pages not kept.
		var cached []float64
		var all float64
		for i, w := range u.Weights {
			all += w
			if u.Cached[i] {
				cached = append(cached, w)
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(cached)))
		var top float64
		for k := 0; k < len(cached) && int64(k) < u.Capacity; k++ {
			top += cached[k]
		}
		for _, name := range []string{"optimum", "etlru-paper"} {
			if want := step * (all - top); math.Abs(rows[name].Value-want) > 1e-9 {
				t.Errorf("%s: %s expected TEL %v, want Δ·(Σλ − top) = %v", cmd, name, rows[name].Value, want)
			}
		}
		if ok, detail, _ := c.Check(u); !ok {
			t.Errorf("%s: the claim fails (%s) where the MDP agrees", cmd, detail)
		}
	}
	if stated < 100 {
		t.Errorf("%d of 300 problems have a command, want ≥ 100", stated)
	}
}

// oneStepCommand runs a printed 'tailbound mdp onestep' line in process:
// it reads the flags back into etlru.OneStepOptions (as the command binds
// them) and solves with etlru.SolveOneStep, the command's one call.
func oneStepCommand(t *testing.T, cmd string) *etlru.OneStepSolution {
	t.Helper()
	args, ok := strings.CutPrefix(cmd, "tailbound mdp onestep ")
	if !ok {
		t.Fatalf("not an mdp onestep line: %q", cmd)
	}
	f := strings.Fields(args)
	flags := map[string]string{}
	for i := 0; i+1 < len(f); i += 2 {
		flags[strings.TrimPrefix(f[i], "--")] = f[i+1]
	}
	if len(f) != 10 || len(flags) != 5 {
		t.Fatalf("%s: want the five flags --items, --capacity, --block-size, --xi-tokens, --prompt", cmd)
	}
	c, err1 := strconv.ParseInt(flags["capacity"], 10, 64)
	b, err2 := strconv.ParseInt(flags["block-size"], 10, 64)
	xi, err3 := strconv.ParseFloat(flags["xi-tokens"], 64)
	if err1 != nil || err2 != nil || err3 != nil {
		t.Fatalf("%s: %v %v %v", cmd, err1, err2, err3)
	}
	s, err := etlru.SolveOneStep(etlru.OneStepOptions{Items: flags["items"], Capacity: c, BlockSize: b, Xi: xi, Prompt: flags["prompt"]})
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return s
}

// withShrinks returns in and every instance one shrinking step away: a
// counterexample is printed after shrinking, so those need commands too.
func withShrinks(in claim.Instance) []claim.Instance {
	return append([]claim.Instance{in}, in.Shrink()...)
}

// TestOneStepEveryCommand: every lemma1 problem (the claim's generator at
// the default sizes, and one shrinking step from it) has a command, and
// each mdp onestep line gives the claim's two sides: the greedy keeps what
// etlru.Greedy keeps on the claim's problem, with its objective, and the
// optimum is the dynamic program's. Most problems need the onestep line.
func TestOneStepEveryCommand(t *testing.T) {
	c := lemma1(DefaultSizes())
	r := rand.New(rand.NewPCG(17, 6))
	var onestep, solve int
	for k := 0; k < 300; k++ {
		for _, in := range withShrinks(c.Generate(r)) {
			o := in.(*OneStep)
			cmd := o.Command()
			if strings.HasPrefix(cmd, "tailbound mdp solve ") {
				solve++ // checked against the full MDP by TestOneStepCommandReproduces
				continue
			}
			onestep++
			s := oneStepCommand(t, cmd)
			p, err := o.Problem()
			if err != nil {
				t.Fatal(err)
			}
			y, err := etlru.Greedy(p)
			if err != nil {
				t.Fatal(err)
			}
			_, best, err := etlru.Exact(p)
			if err != nil {
				t.Fatal(err)
			}
			if g := p.Objective(y); !slices.Equal(s.Greedy, y) || math.Abs(s.GreedyObjective-g) > objTol(g) {
				t.Errorf("%s: greedy keeps %v at %v; the claim's greedy %v at %v", cmd, s.Greedy, s.GreedyObjective, y, g)
			}
			if math.Abs(s.OptimumObjective-best) > objTol(best) {
				t.Errorf("%s: optimum %v, the claim's dynamic program %v", cmd, s.OptimumObjective, best)
			}
		}
	}
	t.Logf("%d mdp onestep lines, %d mdp solve lines", onestep, solve)
	if onestep < 2000 || solve < 400 {
		t.Errorf("%d mdp onestep lines and %d mdp solve lines; want ≥ 2000 and ≥ 400", onestep, solve)
	}
}

// TestUnitPageEveryCommand: every unit-page problem (the claim's generator
// at the default sizes, and one shrinking step from it) has a command, and
// each mdp onestep line keeps the pages the claim's greedy keeps, with the
// optimum Σ λ of the pages outside the top-λ set the claim compares with.
func TestUnitPageEveryCommand(t *testing.T) {
	c := corollaryUnitPage(DefaultSizes())
	r := rand.New(rand.NewPCG(17, 7))
	var onestep int
	for k := 0; k < 300; k++ {
		for _, in := range withShrinks(c.Generate(r)) {
			u := in.(*UnitPage)
			cmd := u.Command()
			if strings.HasPrefix(cmd, "tailbound mdp solve ") {
				continue // checked against the full MDP by TestUnitPageCommandReproduces
			}
			onestep++
			s := oneStepCommand(t, cmd)
			y, err := etlru.Greedy(u.Problem())
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(s.Greedy, y) {
				t.Errorf("%s: greedy keeps %v, the claim's greedy %v", cmd, s.Greedy, y)
			}
			// Σ λ outside the min(C, #cached) cached pages of largest λ.
			var cached []float64
			var all float64
			for i, w := range u.Weights {
				all += w
				if u.Cached[i] {
					cached = append(cached, w)
				}
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(cached)))
			top := 0.0
			for j := 0; j < len(cached) && int64(j) < u.Capacity; j++ {
				top += cached[j]
			}
			if want := all - top; math.Abs(s.OptimumObjective-want) > 1e-9 {
				t.Errorf("%s: optimum %v tokens/s, want Σλ − top = %v", cmd, s.OptimumObjective, want)
			}
		}
	}
	t.Logf("%d mdp onestep lines", onestep)
	if onestep < 400 {
		t.Errorf("%d mdp onestep lines, want ≥ 400", onestep)
	}
}

package proofscheck

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/instance"
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
// none; enough can for the test to mean something.
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
		if cmd == "" {
			continue
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

// TestOneStepCommandNone: problems the one-step MDP cannot state have no
// command — more to evict than a served item holds (4 tokens in 3, and
// neither item at its whole history, so neither was just served), or two
// fixed items.
func TestOneStepCommandNone(t *testing.T) {
	over := &OneStep{Weights: []float64{1, 1}, History: []int64{5, 5}, Upper: []int64{2, 2}, Fixed: []bool{false, false},
		Params: instance.Params{Capacity: 3, BlockSize: 1}, Prompt: []int64{1}, Probs: []float64{1}}
	two := &OneStep{Weights: []float64{1, 1}, History: []int64{1, 1}, Upper: []int64{1, 1}, Fixed: []bool{true, true},
		Params: instance.Params{Capacity: 2, BlockSize: 1}, Prompt: []int64{1}, Probs: []float64{1}}
	for _, o := range []*OneStep{over, two} {
		if c := o.Command(); c != "" {
			t.Errorf("%+v: command %q, want none", o, c)
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
	// pages over the capacity, so no command.
	if c := (&UnitPage{Weights: []float64{0.3, 0.9, 0.5, 0.1}, Cached: []bool{true, true, true, true}, Capacity: 2}).Command(); c != "" {
		t.Errorf("command %q, want none", c)
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
		if cmd == "" {
			continue
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

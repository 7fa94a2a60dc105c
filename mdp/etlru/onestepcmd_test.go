package etlru

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// TestSolveOneStepByHand: C = 6, B = 2, ξ = 1, Q = 0 or 4 tokens with
// equal chance, so E[(c + Q)⁺] = ((c)⁺ + (c + 4)⁺)/2. Item A (λ = 1/s,
// H = 4, fixed at 4) costs E[(−1 + Q)⁺] = 1.5. That leaves one block for
// B (λ = 0.5/s, H = 6) or C (λ = 2/s, H = 2):
//
//	B gets it: A 1.5 + B 0.5·E[(3 + Q)] = 2.5 + C 2·E[(1 + Q)] = 6  → 10
//	C gets it: A 1.5 + B 0.5·E[(5 + Q)] = 3.5 + C 2·E[(−1 + Q)⁺] = 3 → 8
//
// so the optimum keeps [4 0 2] at 8 tokens/s. The greedy evicts B's blocks
// (marginal values 0.75, 1, 1) before C's (3) and keeps the same.
func TestSolveOneStepByHand(t *testing.T) {
	o := OneStepOptions{Items: "1:4:4:fixed,0.5:6:6,2:2:2", Capacity: 6, BlockSize: 2, Xi: 1, Prompt: "pmf:0:0.5,4:0.5"}
	s, err := SolveOneStep(o)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{4, 0, 2}
	if !reflect.DeepEqual(s.Greedy, want) || !reflect.DeepEqual(s.Optimum, want) {
		t.Errorf("greedy %v, optimum %v; want %v for both", s.Greedy, s.Optimum, want)
	}
	if math.Abs(s.GreedyObjective-8) > 1e-12 || math.Abs(s.OptimumObjective-8) > 1e-12 {
		t.Errorf("objectives %v, %v tokens/s; want 8", s.GreedyObjective, s.OptimumObjective)
	}
	if got := s.Problem.Objective([]int64{4, 2, 0}); math.Abs(got-10) > 1e-12 {
		t.Errorf("objective of [4 2 0] = %v, want 10 by hand", got)
	}
}

// bruteForce returns the least objective over every decision: each item
// keeps a whole number of blocks up to its bound (a fixed item its bound),
// the total within the capacity.
func bruteForce(p *Problem) float64 {
	best := math.Inf(1)
	y := make([]int64, len(p.Items))
	var rec func(i int, used int64)
	rec = func(i int, used int64) {
		if i == len(p.Items) {
			best = min(best, p.Objective(y))
			return
		}
		it := p.Items[i]
		lo := int64(0)
		if it.Fixed {
			lo = it.Upper
		}
		for k := lo; k <= it.Upper && used+k <= p.Capacity; k += p.BlockSize {
			y[i] = k
			rec(i+1, used+k)
		}
	}
	rec(0, 0)
	return best
}

// randomOptions draws the flags of a small problem: 1–4 items with
// histories up to 12 tokens, B in 1..3, a capacity of up to 5 blocks,
// ξ integer or fractional and possibly negative, a prompt of 1–3 atoms on
// 0..8 tokens, rates over two orders of magnitude (some 0), sometimes a
// fixed first item and explicit recencies.
func randomOptions(r *rand.Rand) OneStepOptions {
	b := int64(1 + r.IntN(3))
	o := OneStepOptions{BlockSize: b, Capacity: b * int64(r.IntN(6)), Xi: float64(r.IntN(8) - 2)}
	if r.IntN(2) == 0 {
		o.Xi += r.Float64()
	}
	var items []ItemSpec
	for i := 0; i < 1+r.IntN(4); i++ {
		h := int64(r.IntN(13))
		it := ItemSpec{Rate: math.Pow(10, 2*r.Float64()-1), History: h, Upper: b * int64(r.IntN(int(h/b)+1)), Recency: int64(i)}
		if r.IntN(8) == 0 {
			it.Rate = 0
		}
		if r.IntN(4) == 0 {
			it.Recency = int64(r.IntN(10))
		}
		items = append(items, it)
	}
	if r.IntN(4) == 0 && items[0].Upper <= o.Capacity {
		items[0].Fixed = true
	}
	o.Items = FormatItems(items)
	var atoms []string
	var probs []float64
	var sum float64
	for k := 0; k < 1+r.IntN(3); k++ {
		probs = append(probs, 0.1+r.Float64())
		sum += probs[k]
	}
	for _, p := range probs {
		atoms = append(atoms, strconv.Itoa(r.IntN(9))+":"+strconv.FormatFloat(p/sum, 'g', -1, 64))
	}
	o.Prompt = "pmf:" + strings.Join(atoms, ",")
	return o
}

// TestSolveOneStepBruteForce: on 2000 random small problems the optimum's
// objective is the least over every decision (enumerated), its decision
// attains it, and the greedy's decision is feasible.
func TestSolveOneStepBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for k := 0; k < 2000; k++ {
		o := randomOptions(r)
		s, err := SolveOneStep(o)
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		want := bruteForce(s.Problem)
		if math.Abs(s.OptimumObjective-want) > 1e-9*(1+want) {
			t.Fatalf("%s: optimum %.12g, brute force %.12g", o.Flags(), s.OptimumObjective, want)
		}
		if got := s.Problem.Objective(s.Optimum); math.Abs(got-want) > 1e-9*(1+want) {
			t.Fatalf("%s: the optimum's decision %v has objective %.12g, brute force %.12g", o.Flags(), s.Optimum, got, want)
		}
		var total int64
		for i, y := range s.Greedy {
			it := s.Problem.Items[i]
			if y < 0 || y > it.Upper || y%o.BlockSize != 0 || (it.Fixed && y != it.Upper) {
				t.Fatalf("%s: greedy keeps %v", o.Flags(), s.Greedy)
			}
			total += y
		}
		if total > o.Capacity {
			t.Fatalf("%s: greedy keeps %d tokens, capacity %d", o.Flags(), total, o.Capacity)
		}
	}
}

// splitFlags reads a line of "--name value" pairs.
func splitFlags(t *testing.T, line string) map[string]string {
	t.Helper()
	f := strings.Fields(line)
	if len(f)%2 != 0 {
		t.Fatalf("%q: not name–value pairs", line)
	}
	m := map[string]string{}
	for i := 0; i < len(f); i += 2 {
		m[strings.TrimPrefix(f[i], "--")] = f[i+1]
	}
	return m
}

// TestOneStepFlagsRoundTrip: Flags writes every option so that reading the
// line back gives the same options, and ParseItems reads FormatItems back
// to the same items.
func TestOneStepFlagsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for k := 0; k < 500; k++ {
		o := randomOptions(r)
		m := splitFlags(t, o.Flags())
		c, err1 := strconv.ParseInt(m["capacity"], 10, 64)
		b, err2 := strconv.ParseInt(m["block-size"], 10, 64)
		xi, err3 := strconv.ParseFloat(m["xi-tokens"], 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		back := OneStepOptions{Items: m["items"], Capacity: c, BlockSize: b, Xi: xi, Prompt: m["prompt"]}
		if back != o {
			t.Fatalf("%+v read back as %+v", o, back)
		}
		items, err := ParseItems(o.Items)
		if err != nil {
			t.Fatal(err)
		}
		if again := FormatItems(items); again != o.Items {
			t.Fatalf("items %q formatted back as %q", o.Items, again)
		}
	}
	items := []ItemSpec{{Rate: 0.1, History: 7, Upper: 4, Recency: 9, Fixed: true}, {Rate: 1e-300, History: 0, Upper: 0, Recency: 1}}
	got, err := ParseItems(FormatItems(items))
	if err != nil || !reflect.DeepEqual(got, items) {
		t.Fatalf("%v read back as %v (%v)", items, got, err)
	}
	if s := FormatItems(items); s != "0.1:7:4:9:fixed,1e-300:0:0" {
		t.Errorf("formatted %q", s)
	}
}

// TestOneStepRefusals: each bad option is refused by an *option.Error
// naming its flags.
func TestOneStepRefusals(t *testing.T) {
	ok := OneStepOptions{Items: "1:3:2", Capacity: 2, BlockSize: 1, Prompt: "pmf:1:1"}
	for _, tc := range []struct {
		edit  func(o *OneStepOptions)
		flags []string
		want  string
	}{
		{func(o *OneStepOptions) { o.Items = "" }, []string{"items"}, "want RATE:HISTORY:UPPER"},
		{func(o *OneStepOptions) { o.Items = "1:3" }, []string{"items"}, "item 0"},
		{func(o *OneStepOptions) { o.Items = "1:3:2,-1:3:2" }, []string{"items"}, "item 1 \"-1:3:2\": rate"},
		{func(o *OneStepOptions) { o.Items = "NaN:3:2" }, []string{"items"}, "rate"},
		{func(o *OneStepOptions) { o.Items = "1:x:2" }, []string{"items"}, "history"},
		{func(o *OneStepOptions) { o.Items = "1:3:4" }, []string{"items"}, "bound \"4\""},
		{func(o *OneStepOptions) { o.Items = "1:3:2:fixed:1" }, []string{"items"}, "want RATE"},
		{func(o *OneStepOptions) { o.Items = "1:3:2:x" }, []string{"items"}, "recency \"x\""},
		{func(o *OneStepOptions) { o.Items = "1:3:3"; o.Capacity, o.BlockSize = 4, 2 }, []string{"items", "block-size"}, "whole number"},
		{func(o *OneStepOptions) { o.Items = "1:3:2:fixed,1:3:1:fixed" }, []string{"items", "capacity"}, "fixed items hold 3"},
		{func(o *OneStepOptions) { o.BlockSize = 0 }, []string{"block-size"}, "≥ 1"},
		{func(o *OneStepOptions) { o.Capacity = 3; o.BlockSize = 2 }, []string{"capacity"}, "multiple"},
		{func(o *OneStepOptions) { o.Capacity = -1 }, []string{"capacity"}, "≥ 0"},
		{func(o *OneStepOptions) { o.Xi = math.Inf(1) }, []string{"xi-tokens"}, "finite"},
		{func(o *OneStepOptions) { o.Prompt = "online" }, []string{"prompt"}, "online"},
		{func(o *OneStepOptions) { o.Prompt = "pmf:1:0.5" }, []string{"prompt"}, "sum"},
		{func(o *OneStepOptions) { o.Items = "1:100000:100000"; o.Capacity = 100000 }, []string{"items", "capacity"}, "dynamic program"},
	} {
		o := ok
		tc.edit(&o)
		_, err := SolveOneStep(o)
		var oe *option.Error
		if !errors.As(err, &oe) || !reflect.DeepEqual(oe.Flags, tc.flags) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v; want flags %v and %q", o, err, tc.flags, tc.want)
		}
	}
	if _, err := SolveOneStep(ok); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
}

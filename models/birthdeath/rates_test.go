package birthdeath

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// TestGammaRates checks the Gamma sampler's mean k/β and variance k/β² and
// the generator with Gamma rates: a conversation makes 1 + λ̄/μ turns on
// average, so 1 + E[λ̄]/μ over the Gamma mixture. Tolerances: 4 standard
// errors from the model's own variances.
func TestGammaRates(t *testing.T) {
	g := Gamma{Shape: 2, MeanRate: 0.05}
	r := rand.New(rand.NewPCG(1, 1))
	const n = 100000
	var s, s2 float64
	for i := 0; i < n; i++ {
		v := g.Sample(r)
		s += v
		s2 += v * v
	}
	mean, variance := s/n, s2/n-(s/n)*(s/n)
	wantVar := g.MeanRate * g.MeanRate / g.Shape
	if math.Abs(mean-g.MeanRate) > 4*math.Sqrt(wantVar/n) {
		t.Errorf("gamma mean %v, want %v", mean, g.MeanRate)
	}
	// Var of the sample variance of a Gamma: (μ4 − σ⁴)/n with kurtosis 3+6/k.
	if se := wantVar * math.Sqrt((2+6/g.Shape)/n); math.Abs(variance-wantVar) > 4*se {
		t.Errorf("gamma variance %v, want %v ± %v", variance, wantVar, 4*se)
	}
	p := Default()
	p.Rates = g
	p.Duration = 2000
	tr, err := Trace(p, 9)
	if err != nil {
		t.Fatal(err)
	}
	convs := float64(tr.Conversations())
	// Further turns given λ̄: geometric with mean m = λ̄/μ, variance m(1+m);
	// over the Gamma: E[m] = 6, Var = E[m(1+m)] + Var(m) = 6 + 2·(36+18) ... computed below.
	mu := p.Mu
	em := g.MeanRate / mu
	vm := wantVar / (mu * mu)
	varTurns := em + (vm + em*em) + vm
	if got := float64(len(tr.Turns)) / convs; math.Abs(got-1-em) > 4*math.Sqrt(varTurns/convs) {
		t.Errorf("%.3f turns per conversation, want %.3f ± %.3f", got, 1+em, 4*math.Sqrt(varTurns/convs))
	}
}

// TestTimestamps checks the synthetic timestamps: same turns in the same
// order within each conversation, times non-decreasing, first turns
// spaced by the birth process (mean gap 1/λ_conv) and later turns by the
// conversation's own rate (mean gap E[1/λ̄] over the classes).
func TestTimestamps(t *testing.T) {
	in := &trace.Trace{}
	const convs, turns = 4000, 5
	for k := 0; k < convs*turns; k++ { // round-robin interleaving, times all 0
		c := k % convs
		in.Append(0, string(rune('a'+c%26))+string(rune('A'+c/26%26))+string(rune('0'+c/676)), int64(1+k), int64(k%3))
	}
	classes := ClassDist{{Rate: 0.1, Weight: 1}, {Rate: 0.5, Weight: 1}}
	out, err := Timestamps(in, 2, classes, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Turns) != len(in.Turns) {
		t.Fatalf("%d turns out, %d in", len(out.Turns), len(in.Turns))
	}
	last := make([]int64, convs) // prompts grow with the input index
	firsts := make([]float64, convs)
	prevTime := make([]float64, convs)
	seen := make([]int, convs)
	var gapSum float64
	var gaps int
	for i, u := range out.Turns {
		if i > 0 && u.Time < out.Turns[i-1].Time {
			t.Fatalf("turn %d goes back in time", i)
		}
		if u.Prompt <= last[u.Conv] {
			t.Fatalf("conversation %d: turns out of order", u.Conv)
		}
		if u.Response != (u.Prompt-1)%3 {
			t.Fatalf("turn %d: lengths changed", i)
		}
		last[u.Conv] = u.Prompt
		if seen[u.Conv] == 0 {
			firsts[u.Conv] = u.Time
		} else {
			gapSum += u.Time - prevTime[u.Conv]
			gaps++
		}
		prevTime[u.Conv] = u.Time
		seen[u.Conv]++
	}
	// Births: the last of 4000 births is a sum of 4000 Exp(2): mean 2000 s, sd √4000/2.
	var lastBirth float64
	for _, f := range firsts {
		lastBirth = max(lastBirth, f)
	}
	if math.Abs(lastBirth-2000) > 4*math.Sqrt(convs)/2 {
		t.Errorf("last birth at %.1f s, want 2000 ± %.1f", lastBirth, 4*math.Sqrt(convs)/2)
	}
	// Gaps: mixture of Exp(0.1) and Exp(0.5): mean 6 s, E[g²] = (200+8)/2 = 104.
	// Gaps of one conversation share its rate: the sd uses conversations as clusters.
	if se := math.Sqrt((104-36)/float64(gaps)) * math.Sqrt(turns-1); math.Abs(gapSum/float64(gaps)-6) > 4*se {
		t.Errorf("mean gap %.3f s, want 6 ± %.3f", gapSum/float64(gaps), 4*se)
	}
	if _, err := Timestamps(in, 0, classes, 1); err == nil {
		t.Error("λ_conv = 0 accepted")
	}
}

// FormatRates writes what ParseRates reads back.
func TestFormatRatesRoundTrip(t *testing.T) {
	for _, cs := range [][]RateClass{Default().Classes, {{Rate: 0.5, Weight: 1}}, {{Rate: 1.0 / 3, Weight: 2}, {Rate: 2, Weight: 0.25}}} {
		back, err := ParseRates(FormatRates(cs))
		if err != nil || !slices.Equal(back, cs) {
			t.Errorf("%v: read back %v, %v", cs, back, err)
		}
	}
	if got := FormatRates([]RateClass{{Rate: 0.5, Weight: 1}, {Rate: 2, Weight: 3}}); got != "0.5:1,2:3" {
		t.Errorf("FormatRates = %q, want 0.5:1,2:3", got)
	}
}

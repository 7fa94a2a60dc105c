package birthdeath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMoments checks the generator against the model's closed forms: about
// λ·T conversations, each with 1 + λ̄/μ turns on average (the first at birth,
// then a geometric number with mean λ̄/μ before death), and the prompt
// mean. Tolerances are 4 standard errors computed from the model's own
// variances (see the comments), so a correct generator fails with
// probability below 10^-4 for a random seed; the seed is fixed.
func TestMoments(t *testing.T) {
	p := Default() // λ = 2/s, μ = 1/120 s, classes 1/20 and 1/60 per s, T = 3600 s
	tr, err := Trace(p, 42)
	if err != nil {
		t.Fatal(err)
	}
	convs := float64(tr.Conversations())
	// Births are Poisson(λT = 7200): sd = √7200 ≈ 85.
	if math.Abs(convs-7200) > 4*85 {
		t.Errorf("%v conversations, want 7200 ± 340", convs)
	}
	// Further turns per conversation: geometric with mean m = λ̄/μ (6 or 2),
	// variance m(1+m); the class mixture has variance 0.5·42 + 0.5·6 + 4 = 28.
	turns := float64(len(tr.Turns)) / convs
	if se := math.Sqrt(28 / convs); math.Abs(turns-5) > 4*se {
		t.Errorf("%.3f turns per conversation, want 5 ± %.3f", turns, 4*se)
	}
	// Prompts: log-normal with mean 200 and sd 200·√(e−1) ≈ 262 tokens.
	var sum float64
	for _, u := range tr.Turns {
		sum += float64(u.Prompt)
	}
	n := float64(len(tr.Turns))
	if se := 262 / math.Sqrt(n); math.Abs(sum/n-200) > 4*se {
		t.Errorf("mean prompt %.1f tokens, want 200 ± %.1f", sum/n, 4*se)
	}
	for i := 1; i < len(tr.Turns); i++ {
		if tr.Turns[i].Time < tr.Turns[i-1].Time {
			t.Fatalf("turn %d goes back in time", i)
		}
	}
}

func TestGeometricMean(t *testing.T) {
	d := Geometric{Min: 1, MeanTokens: 50}
	tr := 200000
	var sum float64
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < tr; i++ {
		v := d.Sample(r)
		if v < 1 {
			t.Fatalf("sample %d below the minimum", v)
		}
		sum += float64(v)
	}
	// Variance of the failures count with mean 49: 49·50; se = √(2450/n).
	if se := math.Sqrt(2450 / float64(tr)); math.Abs(sum/float64(tr)-50) > 4*se {
		t.Errorf("mean %.3f, want 50 ± %.3f", sum/float64(tr), 4*se)
	}
}

func TestValidate(t *testing.T) {
	bad := Default()
	bad.Mu = 0
	if err := bad.Validate(); err == nil {
		t.Error("μ = 0 accepted")
	}
	bad = Default()
	bad.Duration = 0
	if err := bad.Validate(); err == nil {
		t.Error("an endless trace accepted")
	}
}

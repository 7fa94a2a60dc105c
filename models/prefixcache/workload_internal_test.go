package prefixcache

import (
	"math"
	"testing"
)

// The fit of hand-made statistics against the closed forms: 20 reuse events
// of 2 s each over 40 uses give λ = 20/40 s = 0.5/s, p = 20/40 = 0.5, and a
// lifespan at the upper edge of the bin of 2000 ms: bin ⌊4·log2 2000⌋ = 43,
// edge 2^(44/4) ms = 2.048 s.
func TestWorkloadFit(t *testing.T) {
	var s waStats
	s.n, s.uses, s.sum = 20, 40, 40
	s.hist[waBin(2)] = 20
	f := s.fit(0.99, false)
	if !f.ok || f.rate != 0.5 || f.p != 0.5 || math.Abs(f.life-2.048) > 1e-12 {
		t.Fatalf("fit %+v, want rate 0.5, p 0.5, life 2.048", f)
	}
	tests := []struct{ t, want float64 }{
		{0, 0.5 * (1 - math.Exp(-1.024)) / 1},
		{1, 0.5 * (math.Exp(-0.5) - math.Exp(-1.024)) / (0.5 + 0.5*math.Exp(-0.5))},
		{2.048, 0},
		{10, 0},
	}
	for _, tc := range tests {
		if got := f.prob(tc.t); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("prob(%g) = %.17g, want %.17g", tc.t, got, tc.want)
		}
	}
	for x := 0.0; x < 2.1; x += 0.01 { // falls with idle time
		if f.prob(x+0.01) > f.prob(x) {
			t.Fatalf("prob rises between %g and %g s", x, x+0.01)
		}
	}
	if s.n = 15; s.fit(0.99, false).ok {
		t.Error("fitted on fewer than 16 events")
	}
}

// The auto Q̂ of prefix T-LRU: the mean new tokens of continuations (seen
// prefix ≥ 2 blocks), else of all requests.
func TestTLRUQHat(t *testing.T) {
	p := &tlru{block: 16}
	p.Observe(&Req{Input: 100, Seen: 1}) // 84 new tokens, not a continuation
	if q := p.QHat(); q != 84 {
		t.Fatalf("Q̂ = %g, want 84", q)
	}
	p.Observe(&Req{Input: 50, Seen: 2})  // 18
	p.Observe(&Req{Input: 40, Seen: 3})  // 0 (clipped)
	p.Observe(&Req{Input: 200, Seen: 5}) // 120
	if q := p.QHat(); q != 46 {
		t.Fatalf("Q̂ = %g, want (18+0+120)/3 = 46", q)
	}
	p.qhat = 7
	if q := p.QHat(); q != 7 {
		t.Fatalf("fixed Q̂ = %g, want 7", q)
	}
}

// The ablation switches: without lifespan regulation the same statistics
// give L = ∞ and ReuseProb(t) = p·e^{−λt}/(1 − p + p·e^{−λt}); without
// categories every request is one category; a bad value is an error.
func TestWorkloadAblation(t *testing.T) {
	var s waStats
	s.n, s.uses, s.sum = 20, 40, 40
	s.hist[waBin(2)] = 20
	f := s.fit(0.99, true)
	e := math.Exp(-0.5 * 3)
	if !math.IsInf(f.life, 1) || math.Abs(f.prob(3)-0.5*e/(0.5+0.5*e)) > 1e-15 {
		t.Errorf("no-life fit %+v, prob(3) = %v", f, f.prob(3))
	}
	pol, err := NewWorkloadAware(Config{Options: map[string]string{"wa-categories": "off", "wa-life": "off", "wa-offset": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	p := pol.(*workloadAware)
	if !p.noCats || !p.noLife || !p.noOffset {
		t.Errorf("switches %+v", p)
	}
	if a, b := p.category(&Req{Category: 0, Turn: 1}), p.category(&Req{Category: 3, Turn: 4}); a != 0 || b != 0 {
		t.Errorf("categories %d, %d with wa-categories=off; want 0, 0", a, b)
	}
	on, _ := NewWorkloadAware(Config{})
	q := on.(*workloadAware)
	if a, b := q.category(&Req{Category: 0, Turn: 1}), q.category(&Req{Category: 3, Turn: 4}); a == b {
		t.Errorf("categories %d, %d by default; want different", a, b)
	}
	if _, err := NewWorkloadAware(Config{Options: map[string]string{"wa-life": "no"}}); err == nil {
		t.Error("wa-life=no accepted")
	}
}

package etlru

import (
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
)

// run replays tr under ET-LRU built with opts and returns the final cached
// amounts per conversation.
func run(t *testing.T, tr *trace.Trace, capacity, block int64, xi float64, forced bool, opts map[string]string) []int64 {
	t.Helper()
	p, err := New(policy.Config{Params: instance.Params{Capacity: capacity, BlockSize: block, Xi: xi, Forced: forced}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := cache.New(instance.Params{Capacity: capacity, BlockSize: block, Forced: forced})
	for _, u := range tr.Turns {
		s.Begin(u.Conv, u.Prompt, u.Response)
		if err := p.Update(s, u); err != nil {
			t.Fatal(err)
		}
		if err := s.End(); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]int64, tr.Conversations())
	for c := range out {
		out[c] = s.Cached(c)
	}
	return out
}

// TestHandWorked works three decisions by hand.
func TestHandWorked(t *testing.T) {
	// Figure 1: A (100 tokens) at t=0, B (100) at t=1, C = 100, ξ = 150, Q
	// = 100 for sure. Each conversation's budget is 100 + 100 − 150 = 50
	// tokens: blocks beyond it are worth nothing, so ET-LRU trims both to
	// 50 (A's zero-value blocks first, being older, then B's).
	fig := &trace.Trace{}
	fig.Append(0, "A", 100, 0)
	fig.Append(1, "B", 100, 0)
	if got := run(t, fig, 100, 1, 150, false, map[string]string{"prompt": "fixed:100"}); got[0] != 50 || got[1] != 50 {
		t.Errorf("figure 1: A %d, B %d tokens, want 50, 50", got[0], got[1])
	}
	// ξ = 0 and one rate: every block of a conversation is worth its λ, and
	// λ falls with silence, so ET-LRU is LRU: the older A goes first.
	if got := run(t, fig, 100, 10, 0, false, map[string]string{"prompt": "fixed:100", "rates": "0.05"}); got[0] != 0 || got[1] != 100 {
		t.Errorf("ξ = 0: A %d, B %d tokens, want 0, 100", got[0], got[1])
	}
	// Rates matter: A (rate 1/s, silent 1 s) against B (just served) under
	// the paper belief with μ = 1/s: λ_A = e^{−1}·λ̄ < λ_B = λ̄, so with ξ = 0
	// the older A loses. Now make A's blocks worth more: Q ∈ {1 w.p. ½, 200 w.p. ½}
	// and ξ = 150: A's blocks y ≤ 100 + 1 − 150 < 0 are worth λ_A·½ each
	// (only Q = 200 reaches them) for y ≤ 150, B likewise; λ_A < λ_B, so
	// A is trimmed to 0 before B loses anything.
	if got := run(t, fig, 100, 1, 150, false, map[string]string{"prompt": "pmf:1:0.5,200:0.5", "mu": "1", "rates": "1"}); got[0] != 0 || got[1] != 100 {
		t.Errorf("two-point prompt: A %d, B %d tokens, want 0, 100", got[0], got[1])
	}
}

// TestForced: under forced caching the served conversation keeps its whole
// history even when its blocks are worth less than the others'.
func TestForced(t *testing.T) {
	tr := &trace.Trace{}
	tr.Append(0, "A", 60, 0)
	tr.Append(100, "B", 60, 0) // A is 100 s older; λ_A ≪ λ_B
	tr.Append(100.5, "A", 1, 0)
	got := run(t, tr, 100, 1, 0, true, map[string]string{"prompt": "fixed:1"})
	if got[0] != 61 || got[1] != 39 {
		t.Errorf("forced: A %d, B %d tokens, want 61, 39", got[0], got[1])
	}
}

func TestOptionErrors(t *testing.T) {
	cases := []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"belief": "oracle"}, "belief"},
		{map[string]string{"mu": "x"}, "mu"},
		{map[string]string{"mu": "0"}, "μ"},
		{map[string]string{"rates": "0:1"}, "rates"},
		{map[string]string{"gamma": "1"}, "gamma"},
		{map[string]string{"gamma": "1:1", "rates": "1"}, "not both"},
		{map[string]string{"prompt": "pmf:1:0.2"}, "sum"},
		{map[string]string{"prompt": "weird"}, "prompt"},
		{map[string]string{"bogus": "1"}, "unknown option"},
		{map[string]string{"etlru.bogus": "1"}, "unknown option"},
	}
	for _, c := range cases {
		if _, err := ParseOptions(c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.opts, err, c.want)
		}
	}
	if _, err := ParseOptions(map[string]string{"tlru.x": "1", "etlru.belief": "bayes"}); err != nil {
		t.Errorf("other policies' options rejected: %v", err)
	}
}

// FuzzParsePrompt: no prompt specification makes the parser panic, and an
// accepted one is a distribution on tokens ≥ 0 summing to 1.
func FuzzParsePrompt(f *testing.F) {
	for _, s := range []string{"online", "pmf:1:0.5,3:0.5", "fixed:4", "geometric:10", "lognormal:3,0.5", "pmf:", "pmf:1:2:3", "pmf:-1:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "empirical:") || strings.HasPrefix(spec, "lognormal:") || strings.HasPrefix(spec, "geometric:") {
			return // files, and huge supports from extreme parameters, are not fuzzed
		}
		a, err := ParsePrompt(spec)
		if err != nil || a == nil {
			return
		}
		var s float64
		for i, v := range a.Values {
			if v < 0 || a.Probs[i] < 0 {
				t.Fatalf("%q: atom %d with probability %v", spec, v, a.Probs[i])
			}
			s += a.Probs[i]
		}
		if s < 1-1e-9 || s > 1+1e-9 {
			t.Fatalf("%q: probabilities sum to %v", spec, s)
		}
	})
}

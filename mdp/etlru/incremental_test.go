package etlru

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay/replaytest"
	"github.com/tailbound/tailbound/models/trace"
)

// decisions replays tr under ET-LRU with opts (rescoring every cached
// conversation on overflow when rescore) and returns every change of a
// cached amount, in order, as "turn:conv:from>to", with the eviction
// counters.
func decisions(t testing.TB, tr *trace.Trace, prm instance.Params, opts map[string]string, rescore bool) []string {
	t.Helper()
	o, err := ParseOptions(opts)
	if err != nil {
		t.Fatal(err)
	}
	o.Rescore = rescore
	p := NewWith(policy.Config{Params: prm}, o)
	if (p.inc == nil) != (rescore || opts["belief"] == "bayes") || (p.bayes == nil) != (rescore || opts["belief"] != "bayes") {
		t.Fatalf("rescore=%v belief=%q: incremental index %v, Bayes index %v", rescore, opts["belief"], p.inc != nil, p.bayes != nil)
	}
	s, err := cache.New(prm)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	k := 0
	s.Observe(func(c int, from, to int64) { out = append(out, fmt.Sprintf("%d:%d:%d>%d", k, c, from, to)) })
	for _, u := range tr.Turns {
		k = u.Index
		s.Begin(u.Conv, u.Prompt, u.Response)
		if err := p.Update(s, u); err != nil {
			t.Fatal(err)
		}
		if err := s.End(); err != nil {
			t.Fatal(err)
		}
	}
	return append(out, fmt.Sprintf("evictions %d, %d tokens", s.Evictions(), s.EvictedTokens()))
}

// firstDiff describes the first difference of two decision lists.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("change %d: incremental %s, rescoring %s", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// TestIncrementalEqualsRescoring: on random traces (fractional times,
// thresholds ξ, death rates), block sizes, capacities, caching modes and
// prompt distributions (online, fixed, two-point), the incremental index
// makes exactly the decisions of re-scoring every cached conversation at
// every overflow (the implementation before it), change for change.
func TestIncrementalEqualsRescoring(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 10, MinTurns: 1, MaxTurns: 80, MaxPrompt: 60, MaxResponse: 60}).Draw(rt, "trace")
		scale := rapid.OneOf(rapid.Just(0.0), rapid.Float64Range(0.01, 50)).Draw(rt, "seconds per turn") // 0: equal times, equal decay
		for i := range tr.Turns {
			tr.Turns[i].Time *= scale
		}
		block := rapid.Int64Range(1, 8).Draw(rt, "block")
		prm := instance.Params{Capacity: block * rapid.Int64Range(0, 40).Draw(rt, "capacity blocks"), BlockSize: block,
			Xi: rapid.Float64Range(-20, 120).Draw(rt, "xi"), Forced: rapid.Bool().Draw(rt, "forced")}
		opts := map[string]string{
			"prompt": rapid.SampledFrom([]string{"online", "fixed:30", "pmf:5:0.5,50:0.5", "pmf:1:0.2,20:0.3,90:0.5"}).Draw(rt, "prompt"),
			"mu":     rapid.SampledFrom([]string{"0.001", "0.05", "1", "7"}).Draw(rt, "mu"),
		}
		a, b := decisions(t, tr, prm, opts, false), decisions(t, tr, prm, opts, true)
		if !slices.Equal(a, b) {
			rt.Fatalf("%s", firstDiff(a, b))
		}
	})
}

// TestIncrementalEmbeddedWorkload: on the embedded birth–death workload
// (seed 1, ≈36,000 turns) at the simulate command's default cache and ξ,
// and forced with ξ = 0 and a smaller cache, with the online and a
// three-point prompt distribution, the incremental index's decisions
// equal the re-scoring ones (≈4 s of CPU, most of it the re-scoring
// oracle).
func TestIncrementalEmbeddedWorkload(t *testing.T) {
	for _, seed := range []uint64{1} {
		tr, err := birthdeath.Trace(birthdeath.Default(), seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, prm := range []instance.Params{
			{Capacity: 131072, BlockSize: 16, Xi: 1900},
			{Capacity: 32768, BlockSize: 16, Xi: 0, Forced: true},
		} {
			for _, prompt := range []string{"online", "pmf:100:0.3,400:0.4,2500:0.3"} {
				opts := map[string]string{"prompt": prompt}
				a, b := decisions(t, tr, prm, opts, false), decisions(t, tr, prm, opts, true)
				if !slices.Equal(a, b) {
					t.Errorf("seed %d %+v prompt %s: %s", seed, prm, prompt, firstDiff(a, b))
				}
				if len(a) < 1000 {
					t.Errorf("seed %d %+v: only %d changes: the cache does not overflow enough to test", seed, prm, len(a))
				}
			}
		}
	}
}

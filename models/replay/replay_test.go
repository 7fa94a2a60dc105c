package replay_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/replay/replaytest"
	"github.com/tailbound/tailbound/models/trace"
)

// fig1 is the trace of the tail-latency paper's Figure 1: A, B, A, each a
// prompt of 100 tokens with no response.
func fig1() *trace.Trace {
	tr := &trace.Trace{}
	for i, c := range []string{"A", "B", "A"} {
		tr.Append(float64(i), c, 100, 0)
	}
	return tr
}

// TestHandWorked replays fig1 under LRU and T-LRU(ξ = 150, Q̂ = 100) at once
// (C = 100, B = 1) and compares each result with values worked by hand.
//
// LRU: A keeps 100; B keeps 100 and A, least recent, gives its 100; A
// returns to nothing (b = 200), keeps 100 and B gives its 100. b = 100,
// 100, 200: TEL (200 − 150) = 50, Σb = 400, nothing ever hit; 2 evictions
// of 200 tokens.
//
// T-LRU: budgets ⌈(100 + 100 − 150)⁺⌉ = 50 after turn 1, so A then B give
// 50 each; A returns to 50 cached (b = 150), keeps 100, and B, least recent,
// gives its 50. b = 100, 100, 150: TEL 0, Σb = 350, hit ratio 50/400; 3
// evictions of 150 tokens.
func TestHandWorked(t *testing.T) {
	cfg := policy.Config{Params: instance.Params{Capacity: 100, BlockSize: 1, Xi: 150}, QHat: 100}
	lru, _ := policy.NewLRU(cfg)
	tlru, _ := policy.NewTLRU(cfg)
	res, err := replay.Replay(replay.SliceSource(fig1().Turns), []replay.Named{{Name: "lru", Policy: lru}, {Name: "tlru", Policy: tlru}},
		replay.Options{Params: cfg.Params, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name                 string
		tel, sumB, hit       float64
		maxB                 int64
		evictions, evictedTk int64
	}{
		{"lru", 50, 400, 0, 200, 2, 200},
		{"tlru", 0, 350, 0.125, 150, 3, 150},
	}
	if len(res) != len(want) {
		t.Fatalf("%d results for %d policies", len(res), len(want))
	}
	for i, w := range want {
		r := res[i]
		if r.Name != w.name || r.Summary.Turns != 3 || r.Summary.TELTokens != w.tel || r.Summary.UncachedSum != w.sumB ||
			r.Summary.HitRatio != w.hit || r.Summary.MaxUncached != w.maxB || r.Evictions != w.evictions || r.EvictedTokens != w.evictedTk {
			t.Errorf("result %d: %s: turns %d, TEL %v, Σb %v, hit ratio %v, max b %d, %d evictions of %d tokens; want %+v",
				i, r.Name, r.Summary.Turns, r.Summary.TELTokens, r.Summary.UncachedSum, r.Summary.HitRatio, r.Summary.MaxUncached,
				r.Evictions, r.EvictedTokens, w)
		}
	}
}

// audit wraps a policy and keeps its own books of the replay it sees: each
// conversation's history and cached amount, the TEL, Σb and max b of the
// turns, and the state's eviction counters. After every decision it checks
// the model's rules against those books.
type audit struct {
	p      policy.Policy
	params instance.Params
	err    error // first broken rule

	turns          int
	hist, cached   map[int]int64
	tel, sumB      float64
	maxB           int64
	evictions      int64
	evictedTokens  int64
	decreasedTotal int64 // Σ over turns of the other conversations' decreases
}

func newAudit(p policy.Policy, params instance.Params) *audit {
	return &audit{p: p, params: params, hist: map[int]int64{}, cached: map[int]int64{}}
}

func (a *audit) fail(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

func (a *audit) Update(s *cache.State, t trace.Turn) error {
	if t.Index != a.turns {
		a.fail("turn %d handed over as the %d-th", t.Index, a.turns)
	}
	a.turns++
	b := a.hist[t.Conv] + t.Prompt - a.cached[t.Conv]
	a.tel += math.Max(float64(b)-a.params.Xi, 0)
	a.sumB += float64(b)
	a.maxB = max(a.maxB, b)
	a.hist[t.Conv] += t.Prompt + t.Response
	if s.Served() != t.Conv || s.History(t.Conv) != a.hist[t.Conv] {
		a.fail("turn %d: state serves %d with history %d, books say %d with %d", t.Index, s.Served(), s.History(t.Conv), t.Conv, a.hist[t.Conv])
	}
	if err := a.p.Update(s, t); err != nil {
		return err
	}
	blockSize, capacity := a.params.BlockSize, a.params.Capacity
	top := min(a.hist[t.Conv]/blockSize*blockSize, capacity)
	var total int64
	for c, h := range a.hist {
		y := s.Cached(c)
		total += y
		switch {
		case y%blockSize != 0 || y < 0 || y > h:
			a.fail("turn %d: conversation %d holds %d tokens: not whole %d-token blocks within its history %d", t.Index, c, y, blockSize, h)
		case c != t.Conv && y > a.cached[c]:
			a.fail("turn %d: conversation %d grew from %d to %d between its turns", t.Index, c, a.cached[c], y)
		case c == t.Conv && (y > top || a.params.Forced && y != top):
			a.fail("turn %d: served conversation keeps %d tokens, most %d, forced %v", t.Index, y, top, a.params.Forced)
		}
		if c != t.Conv {
			a.decreasedTotal += a.cached[c] - y
		}
		a.cached[c] = y
	}
	if total > capacity {
		a.fail("turn %d: %d tokens cached, capacity %d", t.Index, total, capacity)
	}
	if s.EvictedTokens() < a.decreasedTotal || s.Evictions() < a.evictions || s.EvictedTokens() < a.evictedTokens {
		a.fail("turn %d: eviction counters %d, %d tokens fell or fall short of what the books saw", t.Index, s.Evictions(), s.EvictedTokens())
	}
	a.evictions, a.evictedTokens = s.Evictions(), s.EvictedTokens()
	return nil
}

// onlinePolicy is an online policy of models/policy and its name.
type onlinePolicy struct {
	name string
	new  policy.Factory
}

// online returns every online policy of models/policy.
func online() []onlinePolicy {
	return []onlinePolicy{{"lru", policy.NewLRU}, {"fifo", policy.NewFIFO}, {"lfu", policy.NewLFU},
		{"threshold-lru", policy.NewThresholdLRU}, {"tlru", policy.NewTLRU}}
}

// replayAudited replays turns under every online policy at once, each
// behind an audit, and checks every result against its audit's books.
func replayAudited(tb interface {
	Helper()
	Fatalf(string, ...any)
}, turns []trace.Turn, cfg policy.Config) {
	tb.Helper()
	var runs []replay.Named
	var audits []*audit
	for _, o := range online() {
		p, err := o.new(cfg)
		if err != nil {
			tb.Fatalf("%s: %v", o.name, err)
		}
		a := newAudit(p, cfg.Params)
		runs = append(runs, replay.Named{Name: o.name, Policy: a})
		audits = append(audits, a)
	}
	res, err := replay.Replay(replay.SliceSource(turns), runs, replay.Options{Params: cfg.Params, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
	if err != nil {
		tb.Fatalf("%v", err)
	}
	for i, r := range res {
		a := audits[i]
		switch {
		case a.err != nil:
			tb.Fatalf("%s: %v", r.Name, a.err)
		case r.Name != runs[i].Name:
			tb.Fatalf("result %d is %s, policy %s", i, r.Name, runs[i].Name)
		case a.turns != len(turns) || r.Summary.Turns != int64(len(turns)):
			tb.Fatalf("%s: %d turns replayed, summary says %d, trace has %d", r.Name, a.turns, r.Summary.Turns, len(turns))
		// Both TEL sums add the same float64 terms in the same order; Σb
		// adds integers below 2^53.
		case r.Summary.TELTokens != a.tel || r.Summary.UncachedSum != a.sumB || r.Summary.MaxUncached != a.maxB:
			tb.Fatalf("%s: TEL %v, Σb %v, max b %d; books %v, %v, %d", r.Name, r.Summary.TELTokens, r.Summary.UncachedSum, r.Summary.MaxUncached, a.tel, a.sumB, a.maxB)
		case r.Evictions != a.evictions || r.EvictedTokens != a.evictedTokens:
			tb.Fatalf("%s: %d evictions of %d tokens, state ended with %d of %d", r.Name, r.Evictions, r.EvictedTokens, a.evictions, a.evictedTokens)
		}
	}
}

// TestInvariants replays random traces under every online policy at once
// and checks the engine's results and the cache after every turn against
// independent books (see audit).
func TestInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tr := replaytest.Trace(replaytest.Shape{Conversations: 6, MinTurns: 0, MaxTurns: 60, MaxPrompt: 300, MaxResponse: 300}).Draw(t, "trace")
		block := rapid.SampledFrom([]int64{1, 4, 16}).Draw(t, "block")
		cfg := policy.Config{
			Params: instance.Params{BlockSize: block, Capacity: block * rapid.Int64Range(0, 64).Draw(t, "capacity blocks"),
				Xi: rapid.Float64Range(-50, 600).Draw(t, "xi"), Forced: rapid.Bool().Draw(t, "forced")},
			QHat: rapid.SampledFrom([]float64{0, 50, 400}).Draw(t, "qhat"), Threshold: rapid.Int64Range(0, 600).Draw(t, "threshold"),
		}
		replayAudited(t, tr.Turns, cfg)
	})
}

// TestManyBatches replays a trace of several of the engine's batches
// (4096 turns each) and a few turns more.
func TestManyBatches(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tr := &trace.Trace{}
	for k := 0; k < 3*4096+7; k++ {
		tr.Append(float64(k), string(rune('a'+r.IntN(40))), 1+r.Int64N(500), r.Int64N(500))
	}
	replayAudited(t, tr.Turns, policy.Config{Params: instance.Params{Capacity: 1 << 14, BlockSize: 16, Xi: 400}})
}

// grower breaks the rules: it grows a conversation that is not served.
type grower struct{}

func (grower) Update(s *cache.State, t trace.Turn) error {
	return s.Set(0, s.Cached(0)+1)
}

// TestErrors checks that a policy breaking the rules, a source failing, bad
// parameters and a bad latency model are errors, with no partial results.
func TestErrors(t *testing.T) {
	lru := func() policy.Policy {
		p, _ := policy.NewLRU(policy.Config{})
		return p
	}
	good := replay.Options{Params: instance.Params{Capacity: 100, BlockSize: 1}, Model: latency.Default()}
	bad := errors.New("disk on fire")
	failing := func() (trace.Turn, error) { return trace.Turn{}, bad }
	tests := []struct {
		name string
		src  replay.Source
		runs []replay.Named
		opt  replay.Options
		want string
	}{
		{"rule broken", replay.SliceSource(fig1().Turns), []replay.Named{{Name: "lru", Policy: lru()}, {Name: "grower", Policy: grower{}}}, good, "policy grower: turn 1:"},
		{"source fails", failing, []replay.Named{{Name: "lru", Policy: lru()}}, good, "disk on fire"},
		{"capacity not whole blocks", replay.SliceSource(nil), []replay.Named{{Name: "lru", Policy: lru()}},
			replay.Options{Params: instance.Params{Capacity: 10, BlockSize: 16}, Model: latency.Default()}, "capacity 10 tokens must be ≥ 0 and a multiple of the block size 16"},
		{"no latency model", replay.SliceSource(nil), []replay.Named{{Name: "lru", Policy: lru()}},
			replay.Options{Params: good.Params}, "alpha must be"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := replay.Replay(tc.src, tc.runs, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || res != nil {
				t.Errorf("got %v results, error %v; want no results and an error containing %q", res, err, tc.want)
			}
		})
	}
}

// Claim 5 of SPEC §6: the three corollaries of Theorem 2 in the
// tail-latency paper (seed ../shared/seeds/003_d50602792df89471.txt, after
// Theorem 2): with ξ = 0 and equal turn rates ET-LRU reduces to LRU; with
// deterministic prompt lengths it reduces to T-LRU (its Policy 1); with
// Q = 0, no responses and one-page histories (classic unit-page caching)
// it evicts the page whose conversation is least likely to return. The
// first two are compared turn by turn with the other policy on random
// traces, the third with the top-λ rule.

package proofscheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/trace"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// Pair is a trace on which ET-LRU is compared, decision by decision, with
// another engine policy.
type Pair struct {
	Turns []trace.Record // the trace (t in seconds, lengths in tokens)
	// Params are the capacity, block size and ξ, tokens, and the caching
	// mode (the claims draw optional caching).
	instance.Params
	QHat    float64           // T-LRU's fixed Q̂, tokens (0 for LRU)
	Options map[string]string // ET-LRU's options
	Other   string            // "lru" or "tlru"
}

// Size implements claim.Instance.
func (p *Pair) Size() int {
	s := 1000*len(p.Turns) + int(p.Blocks())
	for _, t := range p.Turns {
		s += int(t.Prompt + t.Response)
	}
	return s
}

// Shrink implements claim.Instance: drop a turn, halve a response, lower the
// capacity by a block.
func (p *Pair) Shrink() []claim.Instance {
	var out []claim.Instance
	with := func(f func(c *Pair)) {
		c := *p
		c.Turns = append([]trace.Record(nil), p.Turns...)
		f(&c)
		out = append(out, &c)
	}
	for k := range p.Turns {
		if len(p.Turns) > 1 {
			with(func(c *Pair) { c.Turns = append(c.Turns[:k], c.Turns[k+1:]...) })
		}
		if p.Turns[k].Response > 0 {
			with(func(c *Pair) { c.Turns[k].Response /= 2 })
		}
	}
	if p.Capacity > 0 {
		with(func(c *Pair) { c.Capacity -= c.BlockSize })
	}
	return out
}

// Export implements claim.Instance: the trace and the parameters, in
// tokens, with ET-LRU's options and the policy it is compared with.
func (p *Pair) Export() any {
	return map[string]any{"trace": p.Turns, "capacity_tokens": p.Capacity, "block_size_tokens": p.BlockSize,
		"xi_tokens": p.Xi, "forced": p.Forced, "qhat_tokens": p.QHat, "etlru_options": p.Options, "other_policy": p.Other}
}

// Command implements claim.Runnable: the trace piped into 'tailbound
// simulate' with ET-LRU and the other policy side by side.
func (p *Pair) Command() string {
	flags := paramFlags(p.Params) + " --policies etlru," + p.Other
	if p.QHat > 0 {
		flags += fmt.Sprintf(" --qhat %v", p.QHat)
	}
	keys := make([]string, 0, len(p.Options))
	for k := range p.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		flags += fmt.Sprintf(" --policy-opt %s=%s", k, p.Options[k])
	}
	return pipeTrace(p.Turns, "simulate", flags)
}

// Compare replays the trace under ET-LRU and the other policy side by side
// and returns the first turn after which their caches differ (−1 if never)
// with both caches then.
func (p *Pair) Compare() (turn int, et, other []int64, err error) {
	tr := &trace.Trace{}
	for _, t := range p.Turns {
		tr.Append(t.T, t.Conv, t.Prompt, t.Response)
	}
	cfg := policy.Config{Params: p.Params, QHat: p.QHat, Options: p.Options}
	a, err := etlru.New(cfg)
	if err != nil {
		return 0, nil, nil, err
	}
	var b policy.Policy
	switch p.Other {
	case "lru":
		b, err = policy.NewLRU(cfg)
	case "tlru":
		b, err = policy.NewTLRU(cfg)
	default:
		err = fmt.Errorf("checks: unknown comparison policy %q", p.Other)
	}
	if err != nil {
		return 0, nil, nil, err
	}
	sa, err := cache.New(p.Params)
	if err != nil {
		return 0, nil, nil, err
	}
	sb, err := cache.New(p.Params)
	if err != nil {
		return 0, nil, nil, err
	}
	for k, t := range tr.Turns {
		for _, x := range []struct {
			s   *cache.State
			pol policy.Policy
		}{{sa, a}, {sb, b}} {
			x.s.Begin(t.Conv, t.Prompt, t.Response)
			if err := x.pol.Update(x.s, t); err != nil {
				return 0, nil, nil, err
			}
			if err := x.s.End(); err != nil {
				return 0, nil, nil, err
			}
		}
		et, other = make([]int64, tr.Conversations()), make([]int64, tr.Conversations())
		same := true
		for c := range et {
			et[c], other[c] = sa.Cached(c), sb.Cached(c)
			same = same && et[c] == other[c]
		}
		if !same {
			return k, et, other, nil
		}
	}
	return -1, et, other, nil
}

// randomPair draws a trace of up to turns turns over up to 4
// conversations, prompts from prompt (nil: 1..8 tokens), responses 0..6
// tokens, times with gaps 0..2 s, a capacity of up to 8 blocks, and ET-LRU
// options with one rate class, a random μ and belief.
func randomPair(r *rand.Rand, turns int, block int64, xi float64, prompt func() int64) *Pair {
	p := &Pair{Params: instance.Params{BlockSize: block, Capacity: block * int64(r.IntN(9)), Xi: xi}}
	convs := 1 + r.IntN(4)
	t := 0.0
	for k := 2 + r.IntN(max(turns-1, 1)); k > 0; k-- {
		q := int64(1 + r.IntN(8))
		if prompt != nil {
			q = prompt()
		}
		p.Turns = append(p.Turns, trace.Record{T: t, Conv: "c" + strconv.Itoa(r.IntN(convs)), Prompt: q, Response: int64(r.IntN(7))})
		t += float64(r.IntN(5)) / 2
	}
	p.Options = map[string]string{"belief": []string{"paper", "bayes"}[r.IntN(2)],
		"mu": strconv.FormatFloat(0.05+r.Float64(), 'g', 6, 64), "rates": strconv.FormatFloat(0.1+r.Float64(), 'g', 6, 64)}
	return p
}

func pairCheck(c claim.Instance) (bool, string, error) {
	p := c.(*Pair)
	k, et, other, err := p.Compare()
	if err != nil {
		return false, "", err
	}
	if k < 0 {
		return true, "", nil
	}
	return false, fmt.Sprintf("after turn %d ET-LRU caches %v tokens per conversation, %s %v", k, et, p.Other, other), nil
}

// corollaryClaims is claim 5: the LRU corollary, the T-LRU corollary in
// its scope (B = 1, integer ξ) and outside it (B = 2, fractional ξ), and
// the unit-page corollary; traces of up to s.Turns turns, one-step
// problems of up to s.Items pages.
func corollaryClaims(s Sizes) []claim.Claim {
	return []claim.Claim{
		corollaryLRU(s),
		corollaryTLRU(s, 1, false),
		corollaryTLRU(s, 2, false),
		corollaryTLRU(s, 1, true),
		corollaryUnitPage(s),
	}
}

// corollaryLRU is claim 5a: with ξ = 0 and equal rates ET-LRU makes LRU's
// decisions, whatever the prompt distribution and block size.
func corollaryLRU(s Sizes) claim.Claim {
	return claim.Claim{
		Name:      "corollary-lru",
		Statement: "Corollary (tail-latency paper): with ξ = 0 and equal turn rates ET-LRU makes the same decisions as LRU (any prompt distribution, B = 1..4, either belief); compared turn by turn on random traces",
		Generate: func(r *rand.Rand) claim.Instance {
			p := randomPair(r, s.Turns, int64(1+r.IntN(4)), 0, nil)
			p.Other = "lru"
			p.Options["prompt"] = fmt.Sprintf("pmf:%d:0.5,%d:0.5", 1+r.IntN(5), 1+r.IntN(20))
			return p
		},
		Check: pairCheck,
	}
}

// corollaryTLRU is claim 5b: with deterministic prompts (and equal rates)
// ET-LRU makes T-LRU's decisions. scope selects B = 1 with integer ξ (where
// every block's value is λ or 0), B > 1, or fractional ξ (where the last
// block inside the budget is worth a fraction of λ and the two can part).
func corollaryTLRU(s Sizes, block int64, fractional bool) claim.Claim {
	name, scope := "corollary-tlru", "B = 1 token, integer ξ"
	switch {
	case block > 1:
		name, scope = "corollary-tlru-blocks", fmt.Sprintf("B = %d tokens, integer ξ", block)
	case fractional:
		name, scope = "corollary-tlru-fractional-xi", "B = 1 token, ξ = integer + 0.5"
	}
	return claim.Claim{
		Name:      name,
		Statement: "Corollary (tail-latency paper): with deterministic prompt lengths and equal turn rates ET-LRU reduces to T-LRU; " + scope + "; compared turn by turn on random traces whose prompts all have the T-LRU estimate's length",
		Generate: func(r *rand.Rand) claim.Instance {
			q := int64(1 + r.IntN(6))
			xi := float64(r.IntN(10))
			if fractional {
				xi += 0.5
			}
			p := randomPair(r, s.Turns, block, xi, func() int64 { return q })
			p.Other, p.QHat = "tlru", float64(q)
			p.Options["prompt"] = "fixed:" + strconv.FormatInt(q, 10)
			return p
		},
		Check: pairCheck,
	}
}

// UnitPage is a one-step problem of the classic unit-page case: every
// conversation's history is one block (B tokens), the next prompt adds
// nothing (Q = 0) and ξ = 0, so a turn costs B if its page is not cached.
type UnitPage struct {
	Weights  []float64 // λ_i, per second
	Cached   []bool    // whether page i is cached before the decision
	Capacity int64     // pages
}

// Problem returns the one-step ET-LRU problem of the unit-page case: page
// i is an item of rate λ_i, history 1 token and bound 1 token if cached (0
// if not), recency i; C = Capacity tokens, B = 1 token, ξ = 0, Q = 0.
func (u *UnitPage) Problem() *etlru.Problem {
	q, _ := etlru.NewKnown(birthdeath.Atoms{Values: []int64{0}, Probs: []float64{1}}) // one atom of probability 1 is valid
	p := &etlru.Problem{Params: instance.Params{Capacity: u.Capacity, BlockSize: 1, Xi: 0}, Prompt: q}
	for i, w := range u.Weights {
		up := int64(0)
		if u.Cached[i] {
			up = 1
		}
		p.Items = append(p.Items, etlru.Item{LogWeight: math.Log(w), History: 1, Upper: up, Recency: int64(i)})
	}
	return p
}

// Size implements claim.Instance.
func (u *UnitPage) Size() int { return 100*len(u.Weights) + int(u.Capacity) }

// Shrink implements claim.Instance: drop a page or lower the capacity.
func (u *UnitPage) Shrink() []claim.Instance {
	var out []claim.Instance
	for i := range u.Weights {
		if len(u.Weights) > 1 {
			c := &UnitPage{Capacity: u.Capacity}
			c.Weights = append(append([]float64(nil), u.Weights[:i]...), u.Weights[i+1:]...)
			c.Cached = append(append([]bool(nil), u.Cached[:i]...), u.Cached[i+1:]...)
			out = append(out, c)
		}
	}
	if u.Capacity > 0 {
		out = append(out, &UnitPage{Weights: u.Weights, Cached: u.Cached, Capacity: u.Capacity - 1})
	}
	return out
}

// Export implements claim.Instance: the fields of the unit-page problem
// (its command line is Command's).
func (u *UnitPage) Export() any {
	return map[string]any{"rates_per_s": u.Weights, "cached": u.Cached, "capacity_pages": u.Capacity}
}

// corollaryUnitPage is claim 5c: in the unit-page case ET-LRU keeps the
// pages of the conversations most likely to return: "evict the block whose
// conversation is least likely to return".
func corollaryUnitPage(s Sizes) claim.Claim {
	return claim.Claim{
		Name:      "corollary-unitpage",
		Statement: "Corollary (tail-latency paper): with Q = 0, zero responses and one-block histories (classic unit-page caching) ET-LRU evicts the pages whose conversations are least likely to return; its kept set is compared with the top-λ pages",
		Generate: func(r *rand.Rand) claim.Instance {
			u := &UnitPage{Capacity: int64(r.IntN(s.Items + 1))}
			for i := 1 + r.IntN(s.Items); i > 0; i-- {
				u.Weights = append(u.Weights, math.Pow(10, 2*r.Float64()-2))
				u.Cached = append(u.Cached, r.IntN(3) > 0)
			}
			return u
		},
		Check: func(c claim.Instance) (bool, string, error) {
			u := c.(*UnitPage)
			y, err := etlru.Greedy(u.Problem())
			if err != nil {
				return false, "", err
			}
			var cached []int
			for i := range u.Weights {
				if u.Cached[i] {
					cached = append(cached, i)
				}
			}
			// The rule: keep the min(C, #cached) cached pages of largest λ.
			sort.SliceStable(cached, func(a, b int) bool { return u.Weights[cached[a]] > u.Weights[cached[b]] })
			want := make([]int64, len(u.Weights))
			for k, i := range cached {
				if int64(k) < u.Capacity {
					want[i] = 1
				}
			}
			for i := range y {
				if y[i] != want[i] {
					return false, fmt.Sprintf("ET-LRU keeps pages %v, the most-likely-to-return rule %v", y, want), nil
				}
			}
			return true, "", nil
		},
	}
}

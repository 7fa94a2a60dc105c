// Claim 4 of SPEC §6: Lemma 1 of the tail-latency paper (seed
// ../shared/seeds/003_d50602792df89471.txt, appendix B, with the proof of
// Theorem 2): the greedy that evicts, block by block, the block of least
// marginal expected cost (its Policy 2) solves the one-step ET-LRU problem
// (its Definition 1, problem (8)) exactly. Checked against an exact
// dynamic program over conversations × capacity blocks (mdp/etlru.Exact).

package proofscheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// OneStep is a one-step ET-LRU problem with plain numbers, for export.
type OneStep struct {
	Weights []float64 // λ_i, per second
	History []int64   // H_i, tokens
	Upper   []int64   // bound on Y_i, tokens
	Fixed   []bool    // forced items
	// Params are the capacity, block size and ξ, tokens. Forced is not
	// used: in one step, forced caching is an item that is Fixed.
	instance.Params
	Prompt []int64   // prompt atoms, tokens
	Probs  []float64 // their probabilities
}

// Problem returns the etlru problem (recency = item index).
func (o *OneStep) Problem() (*etlru.Problem, error) {
	q, err := etlru.NewKnown(birthdeath.Atoms{Values: o.Prompt, Probs: o.Probs})
	if err != nil {
		return nil, err
	}
	p := &etlru.Problem{Params: o.Params, Prompt: q}
	for i := range o.Weights {
		p.Items = append(p.Items, etlru.Item{LogWeight: math.Log(o.Weights[i]), History: o.History[i],
			Upper: o.Upper[i], Recency: int64(i), Fixed: o.Fixed[i]})
	}
	return p, nil
}

// Size implements claim.Instance.
func (o *OneStep) Size() int {
	s := 1000*len(o.Weights) + 10*len(o.Prompt) + int(o.Blocks())
	for i := range o.History {
		s += int(o.History[i] + o.Upper[i])
	}
	return s
}

// Shrink implements claim.Instance: drop an item or a prompt atom, lower a history or
// a bound by a block, or the capacity.
func (o *OneStep) Shrink() []claim.Instance {
	var out []claim.Instance
	with := func(f func(c *OneStep)) {
		c := *o
		c.Weights = append([]float64(nil), o.Weights...)
		c.History = append([]int64(nil), o.History...)
		c.Upper = append([]int64(nil), o.Upper...)
		c.Fixed = append([]bool(nil), o.Fixed...)
		c.Prompt = append([]int64(nil), o.Prompt...)
		c.Probs = append([]float64(nil), o.Probs...)
		f(&c)
		if p, err := c.Problem(); err == nil && p.Validate() == nil {
			out = append(out, &c)
		}
	}
	for i := range o.Weights {
		if len(o.Weights) > 1 {
			with(func(c *OneStep) {
				c.Weights = append(c.Weights[:i], c.Weights[i+1:]...)
				c.History = append(c.History[:i], c.History[i+1:]...)
				c.Upper = append(c.Upper[:i], c.Upper[i+1:]...)
				c.Fixed = append(c.Fixed[:i], c.Fixed[i+1:]...)
			})
		}
		if o.Upper[i] > 0 {
			with(func(c *OneStep) { c.Upper[i] -= c.BlockSize })
		}
		if o.History[i] > o.Upper[i] {
			with(func(c *OneStep) { c.History[i]-- })
		}
	}
	for k := range o.Prompt {
		if len(o.Prompt) > 1 {
			with(func(c *OneStep) { c.Prompt, c.Probs = dropAtom(c.Prompt, c.Probs, k) })
		}
	}
	if o.Capacity > 0 {
		with(func(c *OneStep) { c.Capacity -= c.BlockSize })
	}
	return out
}

// Export implements claim.Instance: the problem's fields in order, the
// parameters as Capacity, Block and Xi (the block size keeps the name
// "Block" that 'tailbound check' has always printed).
func (o *OneStep) Export() any {
	return map[string]any{"rates_per_s": o.Weights, "history_tokens": o.History, "upper_tokens": o.Upper, "fixed": o.Fixed,
		"capacity_tokens": o.Capacity, "block_size_tokens": o.BlockSize, "xi_tokens": o.Xi,
		"prompt_tokens": o.Prompt, "prompt_probs": o.Probs}
}

// dropAtom removes atom k of a distribution of lengths (tokens) with
// probabilities probs and rescales the others to sum to one. It reuses the
// slices' storage: pass copies.
func dropAtom(values []int64, probs []float64, k int) ([]int64, []float64) {
	rest := 1 - probs[k]
	values = append(values[:k], values[k+1:]...)
	probs = append(probs[:k], probs[k+1:]...)
	for j := range probs {
		probs[j] /= rest
	}
	return values, probs
}

// RandomOneStep draws a one-step problem with up to items conversations:
// B in 1..4 tokens, histories up to 30 tokens, ξ integer or fractional and
// possibly negative, rates over three orders of magnitude, a prompt of 1–4
// atoms on 0..12 tokens, sometimes a forced item.
func RandomOneStep(r *rand.Rand, items int) *OneStep {
	b := int64(1 + r.IntN(4))
	o := &OneStep{Params: instance.Params{BlockSize: b, Capacity: b * int64(r.IntN(12)), Xi: float64(r.IntN(16) - 3)}}
	if r.IntN(2) == 0 {
		o.Xi += r.Float64()
	}
	k := 1 + r.IntN(4)
	var s float64
	for i := 0; i < k; i++ {
		o.Prompt = append(o.Prompt, int64(r.IntN(13)))
		o.Probs = append(o.Probs, 0.1+r.Float64())
		s += o.Probs[i]
	}
	for i := range o.Probs {
		o.Probs[i] /= s
	}
	for i := 1 + r.IntN(items); i > 0; i-- {
		h := int64(r.IntN(31))
		o.History = append(o.History, h)
		o.Upper = append(o.Upper, b*int64(r.IntN(int(h/b)+1)))
		o.Weights = append(o.Weights, math.Pow(10, 3*r.Float64()-3))
		o.Fixed = append(o.Fixed, false)
	}
	if r.IntN(4) == 0 && o.Upper[0] <= o.Capacity {
		o.Fixed[0] = true
	}
	return o
}

// objTol is the tolerance of objective comparisons: 1e-9 relative, for
// rounding in sums of a few dozen terms.
func objTol(v float64) float64 { return 1e-9 * (1 + math.Abs(v)) }

// lemma1Claims is claim 4 on one-step problems of up to s.Items
// conversations.
func lemma1Claims(s Sizes) []claim.Claim { return []claim.Claim{lemma1(s)} }

// lemma1 is claim 4: the heap greedy solves the one-step ET-LRU problem
// exactly, checked against the dynamic program over items × capacity.
func lemma1(s Sizes) claim.Claim {
	return claim.Claim{
		Name:      "lemma1",
		Statement: "Lemma 1 (tail-latency paper): the block-by-block greedy on marginal values solves the one-step ET-LRU problem; checked against an exact dynamic program over conversations × capacity blocks",
		Generate:  func(r *rand.Rand) claim.Instance { return RandomOneStep(r, s.Items) },
		Check: func(c claim.Instance) (bool, string, error) {
			p, err := c.(*OneStep).Problem()
			if err != nil {
				return false, "", err
			}
			y, err := etlru.Greedy(p)
			if err != nil {
				return false, "", err
			}
			_, best, err := etlru.Exact(p)
			if err != nil {
				return false, "", err
			}
			g := p.Objective(y)
			if math.Abs(g-best) <= objTol(best) {
				return true, "", nil
			}
			return false, fmt.Sprintf("greedy keeps %v tokens with objective %.9g, exact optimum %.9g", y, g, best), nil
		},
	}
}

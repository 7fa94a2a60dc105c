// Claim 11 (SPEC §8, issue 23): the hindsight bounds of the tail metrics of
// the block-level prefix cache (lp/prefixtail). On random small chain
// traces with shared prefixes, capacities from the longest chain up: the
// integer program equals exhaustive search over eviction sequences; LP ≤
// optimum ≤ every replayed hindsight schedule; the hit-optimal schedule's
// cost is at least the optimum; and every block policy's TEL and
// violations are at least the lower bound.

package proofscheck

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	bprefix "github.com/tailbound/tailbound/belady/prefix"
	"github.com/tailbound/tailbound/lp/exhaustive"
	"github.com/tailbound/tailbound/lp/gonumlp"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// ChainInstance is a small block-level trace: chains of hashes (chained:
// equal hash, equal prefix) with their inputs, tokens, a block size,
// tokens, a capacity, blocks, and the objective's threshold, tokens.
type ChainInstance struct {
	Chains    [][]int64 `json:"chains"`
	Inputs    []int64   `json:"inputs_tokens"`
	Block     int64     `json:"block_size_tokens"`
	Capacity  int       `json:"capacity_blocks"`
	Objective string    `json:"objective"`
	Threshold float64   `json:"threshold_tokens"`
}

// Size is the number of block references.
func (c *ChainInstance) Size() int {
	n := 0
	for _, ch := range c.Chains {
		n += len(ch)
	}
	return n
}

// Shrink drops one request at a time (keeping the capacity at least the
// longest chain).
func (c *ChainInstance) Shrink() []claim.Instance {
	var out []claim.Instance
	for i := range c.Chains {
		d := *c
		d.Chains = slices.Delete(slices.Clone(c.Chains), i, i+1)
		d.Inputs = slices.Delete(slices.Clone(c.Inputs), i, i+1)
		if len(d.Chains) > 0 {
			out = append(out, &d)
		}
	}
	return out
}

// Command implements claim.Runnable: the trace in the blocks format (one
// conversation per request) piped into 'tailbound solve --level block'.
func (c *ChainInstance) Command() string {
	var b strings.Builder
	b.WriteString("printf '%s\\n'")
	for i, ch := range c.Chains {
		line, _ := json.Marshal(map[string]any{"t": i, "conv": i, "input": c.Inputs[i], "output": 0, "block": c.Block, "hashes": ch})
		fmt.Fprintf(&b, " '%s'", line)
	}
	th := "--xi-tokens"
	if c.Objective == "slo" {
		th = "--slo-tokens"
	}
	fmt.Fprintf(&b, " | tailbound solve --level block --trace - --trace-format blocks --capacity %d --objective %s %s %v --ip-solver gonum",
		int64(c.Capacity)*c.Block, c.Objective, th, c.Threshold)
	return b.String()
}

// Optimum returns the instance's optimum by exhaustive search over
// eviction sequences (lp/exhaustive.PrefixOptimum).
func (c *ChainInstance) Optimum() (float64, error) {
	reqs, err := c.reqs()
	if err != nil {
		return 0, err
	}
	obj := c.objective()
	return exhaustive.PrefixOptimum(reqs, c.Capacity, func(t, k int) float64 { return obj.Cost(reqs[t].Input, k, c.Block) })
}

// Export returns the instance itself.
func (c *ChainInstance) Export() any { return c }

func (c *ChainInstance) objective() prefixtail.Objective {
	if c.Objective == "slo" {
		return prefixtail.Objective{Kind: prefixtail.SLO, SLOTokens: c.Threshold}
	}
	return prefixtail.Objective{Kind: prefixtail.TEL, XiTokens: c.Threshold}
}

func (c *ChainInstance) reqs() ([]prefixcache.Req, error) {
	rs := make([]blocktrace.Request, len(c.Chains))
	for i, ch := range c.Chains {
		rs[i] = blocktrace.Request{Index: i, Time: float64(i), Input: c.Inputs[i], Hashes: ch, Conv: -1}
	}
	return prefixcache.InternAll(rs)
}

// drawChains draws 6–11 requests of prefixtail.RandomChains over a forest
// of 8–16 blocks, inputs within their chains (⌈input/B⌉ = chain length, so
// that Command reproduces the instance); B ∈ {1, 2, 4, 16}; capacity the
// longest chain plus 0–2 blocks; the threshold 0 … 3B tokens (half the
// time a half token more).
func drawChains(r *rand.Rand, kind string) *ChainInstance {
	block := []int64{1, 2, 4, 16}[r.IntN(4)]
	n, nodes := 6+r.IntN(6), 8+r.IntN(9)
	c := &ChainInstance{Block: block, Objective: kind}
	c.Chains, c.Inputs = prefixtail.RandomChains(r, n, nodes, block, false)
	longest := 0
	for _, ch := range c.Chains {
		longest = max(longest, len(ch))
	}
	c.Capacity = longest + r.IntN(3)
	c.Threshold = float64(r.Int64N(3*block)) + []float64{0, 0.5}[r.IntN(2)]
	return c
}

// blockTailClaims is claim 11 for TEL and SLO.
func blockTailClaims(Sizes) []claim.Claim {
	var out []claim.Claim
	for _, kind := range []string{"tel", "slo"} {
		out = append(out, blockTailIPClaim(kind), blockTailOrderClaim(kind), blockTailHitClaim(kind), blockTailPolicyClaim(kind))
	}
	return out
}

// blockTailSolve returns the instance's exhaustive optimum and bounds (IP
// and LP by gonum).
func blockTailSolve(c *ChainInstance) (float64, *prefixtail.Bounds, []prefixcache.Req, error) {
	reqs, err := c.reqs()
	if err != nil {
		return 0, nil, nil, err
	}
	opt, err := c.Optimum()
	if err != nil {
		return 0, nil, nil, err
	}
	p, err := prefixtail.New(reqs, c.Block, c.Capacity, c.objective())
	if err != nil {
		return 0, nil, nil, err
	}
	b, err := p.Bound(context.Background(), prefixtail.Options{IP: gonumlp.Backend{}, LP: gonumlp.Backend{}})
	if err != nil {
		return 0, nil, nil, err
	}
	return opt, b, reqs, nil
}

const tailTol = 1e-6

func blockTailIPClaim(kind string) claim.Claim {
	return claim.Claim{
		Name:      "block-tail-ip-" + kind,
		Statement: "Claim 11 (issue 23): the " + kind + " integer program of lp/prefixtail (gonum branch and bound) equals exhaustive search over the prefix cache's eviction sequences, B = 1–16, capacity from the longest chain up",
		Generate:  func(r *rand.Rand) claim.Instance { return drawChains(r, kind) },
		Check: func(i claim.Instance) (bool, string, error) {
			opt, b, _, err := blockTailSolve(i.(*ChainInstance))
			if err != nil {
				return false, "", err
			}
			if b.IP == nil || b.IP.Value == nil || b.IP.Status != "optimal" {
				return false, fmt.Sprintf("IP not solved: %+v", b.IP), nil
			}
			if math.Abs(*b.IP.Value-opt) > tailTol*max(1, opt) {
				return false, fmt.Sprintf("IP optimum %v, exhaustive optimum %v", *b.IP.Value, opt), nil
			}
			return true, "", nil
		},
	}
}

func blockTailOrderClaim(kind string) claim.Claim {
	return claim.Claim{
		Name:      "block-tail-order-" + kind,
		Statement: "Claim 11 (issue 23): LP relaxation ≤ exhaustive " + kind + " optimum ≤ every replayed hindsight schedule of lp/prefixtail",
		Generate:  func(r *rand.Rand) claim.Instance { return drawChains(r, kind) },
		Check: func(i claim.Instance) (bool, string, error) {
			opt, b, _, err := blockTailSolve(i.(*ChainInstance))
			if err != nil {
				return false, "", err
			}
			if b.LP == nil || b.LP.Value == nil || *b.LP.Value > opt+tailTol*max(1, opt) {
				return false, fmt.Sprintf("LP %+v above the optimum %v", b.LP, opt), nil
			}
			for _, h := range b.Heuristics {
				if h.Value < opt-tailTol*max(1, opt) {
					return false, fmt.Sprintf("%s replays to %v, below the optimum %v", h.Rule, h.Value, opt), nil
				}
			}
			return true, "", nil
		},
	}
}

// serve replays reqs through a prefix cache of capacity blocks under p
// and returns the hits per request.
func serve(reqs []prefixcache.Req, capacity int, block int64, p prefixcache.Policy) ([]int, error) {
	c, err := prefixcache.New(int64(capacity)*block, block, p)
	if err != nil {
		return nil, err
	}
	hits := make([]int, len(reqs))
	for t := range reqs {
		if hits[t], err = c.Serve(&reqs[t]); err != nil {
			return nil, err
		}
	}
	return hits, nil
}

func cost(c *ChainInstance, reqs []prefixcache.Req, hits []int) float64 {
	obj := c.objective()
	v := 0.0
	for t := range reqs {
		v += obj.Cost(reqs[t].Input, hits[t], c.Block)
	}
	return v
}

func blockTailHitClaim(kind string) claim.Claim {
	return claim.Claim{
		Name:      "block-tail-hit-optimal-" + kind,
		Statement: "Claim 11 (issue 23): the hit-optimal schedule (belady/prefix, furthest next use) has " + kind + " ≥ the exhaustive " + kind + " optimum (it is one admissible schedule; failures would be a bug in either)",
		Generate:  func(r *rand.Rand) claim.Instance { return drawChains(r, kind) },
		Check: func(i claim.Instance) (bool, string, error) {
			c := i.(*ChainInstance)
			opt, _, reqs, err := blockTailSolve(c)
			if err != nil {
				return false, "", err
			}
			f, err := bprefix.NewFuture(reqs)
			if err != nil {
				return false, "", err
			}
			p, err := bprefix.NewBelady(f)(prefixcache.Config{})
			if err != nil {
				return false, "", err
			}
			hits, err := serve(reqs, c.Capacity, c.Block, p)
			if err != nil {
				return false, "", err
			}
			if v := cost(c, reqs, hits); v < opt-tailTol*max(1, opt) {
				return false, fmt.Sprintf("hit-optimal schedule %v below the optimum %v", v, opt), nil
			}
			return true, "", nil
		},
	}
}

func blockTailPolicyClaim(kind string) claim.Claim {
	return claim.Claim{
		Name:      "block-tail-policies-" + kind,
		Statement: "Claim 11 (issue 23): every registered block policy's " + kind + " is ≥ the lower bound of lp/prefixtail and ≥ the exhaustive optimum",
		Generate:  func(r *rand.Rand) claim.Instance { return drawChains(r, kind) },
		Check: func(i claim.Instance) (bool, string, error) {
			c := i.(*ChainInstance)
			opt, b, reqs, err := blockTailSolve(c)
			if err != nil {
				return false, "", err
			}
			cfg := prefixcache.Config{Params: instance.Params{Capacity: int64(c.Capacity) * c.Block, BlockSize: c.Block, Xi: c.Threshold}}
			for _, e := range prefixcache.All() {
				p, err := e.New(cfg)
				if err != nil {
					return false, "", fmt.Errorf("%s: %w", e.Name, err)
				}
				hits, err := serve(reqs, c.Capacity, c.Block, p)
				if err != nil {
					return false, "", fmt.Errorf("%s: %w", e.Name, err)
				}
				v := cost(c, reqs, hits)
				if v < b.Lower-tailTol*max(1, b.Lower) || v < opt-tailTol*max(1, opt) {
					return false, fmt.Sprintf("%s: %v, below the lower bound %v or the optimum %v", e.Name, v, b.Lower, opt), nil
				}
			}
			return true, "", nil
		},
	}
}

package characterize

import (
	"fmt"
	"sort"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/trace"
	"gonum.org/v1/gonum/stat"
)

// Dist summarises a sample of counts (tokens or turns): empirical quantiles
// (the smallest sample value whose empirical CDF reaches p), mean, minimum
// and maximum, in the sample's unit. All are 0 for an empty sample.
type Dist struct {
	Count int64   `json:"count"`
	Min   float64 `json:"min"`
	P10   float64 `json:"p10"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// dist sorts x in place and summarises it.
func dist(x []float64) Dist {
	if len(x) == 0 {
		return Dist{}
	}
	sort.Float64s(x)
	q := func(p float64) float64 { return stat.Quantile(p, stat.Empirical, x, nil) }
	return Dist{Count: int64(len(x)), Min: x[0], P10: q(0.10), P50: q(0.50), P90: q(0.90), P99: q(0.99),
		Max: x[len(x)-1], Mean: stat.Mean(x, nil)}
}

// Turns is the turn and token profile of a canonical conversation trace —
// the distributions of the tail-latency paper's Figures 4 and 6 (turns per
// conversation, prompt and response lengths) and the history each turn
// carries.
type Turns struct {
	Conversations int64 `json:"conversations"`
	Turns         int64 `json:"turns"`
	// PerConversation is the distribution of turns per conversation.
	PerConversation Dist `json:"turns_per_conversation"`
	// Prompt and Response are the distributions of p_k and r_k over turns,
	// tokens.
	Prompt   Dist `json:"prompt_tokens"`
	Response Dist `json:"response_tokens"`
	// History is the distribution of H_k (the tokens of the conversation's
	// earlier prompts and responses) over turns, and Load that of
	// D_k = H_k + p_k, tokens.
	History Dist `json:"history_tokens"`
	Load    Dist `json:"load_tokens"`
	// Sorted samples (for CDF plots; not in JSON).
	PerConvSamples, PromptSamples, ResponseSamples, HistorySamples []float64 `json:"-"`
}

// TurnCounter accumulates Turns from canonical turns in trace order.
type TurnCounter struct {
	hist    []int64
	turns   []int64
	p, r, h []float64
	load    []float64
}

// Add records turn t (conversation ids dense, as trace.Reader numbers them).
func (c *TurnCounter) Add(t trace.Turn) error {
	if t.Conv < 0 || t.Conv > len(c.hist) || t.Prompt < 1 || t.Response < 0 {
		return fmt.Errorf("turn %d: invalid (conversation %d, prompt %d, response %d tokens)", t.Index, t.Conv, t.Prompt, t.Response)
	}
	if t.Conv == len(c.hist) {
		c.hist = append(c.hist, 0)
		c.turns = append(c.turns, 0)
	}
	h := c.hist[t.Conv]
	c.p = append(c.p, float64(t.Prompt))
	c.r = append(c.r, float64(t.Response))
	c.h = append(c.h, float64(h))
	c.load = append(c.load, float64(h+t.Prompt))
	c.hist[t.Conv] = h + t.Prompt + t.Response
	c.turns[t.Conv]++
	return nil
}

// Turns summarises the turns added so far.
func (c *TurnCounter) Turns() *Turns {
	per := make([]float64, len(c.turns))
	for i, n := range c.turns {
		per[i] = float64(n)
	}
	out := &Turns{Conversations: int64(len(c.turns)), Turns: int64(len(c.p)),
		PerConversation: dist(per), Prompt: dist(c.p), Response: dist(c.r), History: dist(c.h), Load: dist(c.load),
		PerConvSamples: per, PromptSamples: c.p, ResponseSamples: c.r, HistorySamples: c.h}
	return out
}

// CanonicalSource returns a Source over a canonical trace that chains each
// turn into blocks of b tokens (blocksim.Chainer: one chain per
// conversation) and records it in tc.
func CanonicalSource(rd *trace.Reader, b int64, tc *TurnCounter) (blocktrace.Source, error) {
	ch, err := blocksim.NewChainer(b)
	if err != nil {
		return nil, err
	}
	return func() (blocktrace.Request, error) {
		t, err := rd.Next()
		if err != nil { // io.EOF at the end
			return blocktrace.Request{}, err
		}
		if err := tc.Add(t); err != nil {
			return blocktrace.Request{}, err
		}
		return ch.Request(t)
	}, nil
}

// RunCanonical characterizes the canonical trace at path chained in
// blocks of block tokens, with its turn and token distributions.
func RunCanonical(path string, block int64, opt Options) (*Report, *Turns, error) {
	if block < 1 {
		return nil, nil, fmt.Errorf("block size %d tokens must be ≥ 1", block)
	}
	f, err := trace.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var tc TurnCounter
	src, err := CanonicalSource(trace.NewReader(f, path), block, &tc)
	if err != nil {
		return nil, nil, err
	}
	rep, err := Run(src, int(block), opt)
	if err != nil {
		return nil, nil, err
	}
	if rep.Requests == 0 {
		return nil, nil, fmt.Errorf("%s: no requests", path)
	}
	return rep, tc.Turns(), nil
}

package etlru

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/instance"
)

// OneStepOptions state one one-step problem (Problem) as the raw values of
// the flags of 'tailbound mdp onestep'; Problem reads and validates them,
// and Flags writes them back as a command line.
type OneStepOptions struct {
	// Items are the conversations, --items RATE:HISTORY:UPPER[:RECENCY][:fixed],…
	// (see ItemSpec).
	Items string
	// Capacity is C, tokens (--capacity), a multiple of BlockSize.
	Capacity int64
	// BlockSize is B, tokens (--block-size).
	BlockSize int64
	// Xi is the threshold ξ, tokens (--xi-tokens); any finite number.
	Xi float64
	// Prompt is the distribution of the next prompt length Q, tokens
	// (--prompt): pmf:TOKENS:PROB,… or any other specification of
	// ParsePrompt but "online". A prompt of 0 tokens is admitted (the
	// unit-page case Q = 0).
	Prompt string
}

// ItemSpec is one conversation of a one-step problem as --items states it:
// RATE:HISTORY:UPPER, then optionally :RECENCY and :fixed.
type ItemSpec struct {
	// Rate is λ_i, turns per second, finite and ≥ 0 (0: it will not
	// return; its LogWeight is −Inf).
	Rate float64
	// History is H_i, tokens.
	History int64
	// Upper is the most it may keep, tokens: at most History and a whole
	// number of blocks.
	Upper int64
	// Recency breaks ties between blocks of equal value (Item.Recency);
	// it defaults to the item's index in the list, so that later items
	// count as more recent.
	Recency int64
	// Fixed items keep Upper (the served conversation under forced
	// caching).
	Fixed bool
}

// MaxOneStepWork bounds the work of the exact dynamic program,
// Σ_i (C/B + 1)·(U_i/B + 1) steps, so that a command line cannot ask for
// hours of work or gigabytes of table (2^27 steps take about a second).
const MaxOneStepWork = 1 << 27

// ParseItems reads --items: comma-separated RATE:HISTORY:UPPER[:RECENCY][:fixed]
// (per second, tokens, tokens, an integer, the word "fixed"). Errors name
// the flag; whole-block bounds are checked by OneStepOptions.Problem, which
// knows the block size.
func ParseItems(s string) ([]ItemSpec, error) {
	var out []ItemSpec
	for i, f := range strings.Split(s, ",") {
		it, err := parseItem(strings.TrimSpace(f), int64(i))
		if err != nil {
			return nil, option.Errorf("items", "item %d %q: %w", i, f, err)
		}
		out = append(out, it)
	}
	return out, nil
}

// parseItem reads one item of --items whose default recency is index.
func parseItem(f string, index int64) (ItemSpec, error) {
	parts := strings.Split(f, ":")
	if len(parts) < 3 || len(parts) > 5 {
		return ItemSpec{}, errors.New("want RATE:HISTORY:UPPER[:RECENCY][:fixed] (per s, tokens, tokens)")
	}
	it := ItemSpec{Recency: index}
	var err error
	if it.Rate, err = strconv.ParseFloat(parts[0], 64); err != nil || !(it.Rate >= 0) || math.IsInf(it.Rate, 0) {
		return ItemSpec{}, fmt.Errorf("rate %q: want a finite number ≥ 0 of turns per s", parts[0])
	}
	if it.History, err = strconv.ParseInt(parts[1], 10, 64); err != nil || it.History < 0 {
		return ItemSpec{}, fmt.Errorf("history %q: want an integer ≥ 0 of tokens", parts[1])
	}
	if it.Upper, err = strconv.ParseInt(parts[2], 10, 64); err != nil || it.Upper < 0 || it.Upper > it.History {
		return ItemSpec{}, fmt.Errorf("bound %q: want an integer of tokens in [0, history %d]", parts[2], it.History)
	}
	rest := parts[3:]
	if n := len(rest); n > 0 && rest[n-1] == "fixed" {
		it.Fixed, rest = true, rest[:n-1]
	}
	if len(rest) == 1 {
		if it.Recency, err = strconv.ParseInt(rest[0], 10, 64); err != nil {
			return ItemSpec{}, fmt.Errorf("recency %q: want an integer (or the word fixed, last)", rest[0])
		}
	} else if len(rest) > 1 {
		return ItemSpec{}, errors.New("want RATE:HISTORY:UPPER[:RECENCY][:fixed] (per s, tokens, tokens)")
	}
	return it, nil
}

// FormatItems writes items as --items reads them: the rate at full
// precision, the recency only where it is not the item's index.
func FormatItems(items []ItemSpec) string {
	parts := make([]string, len(items))
	for i, it := range items {
		s := strconv.FormatFloat(it.Rate, 'g', -1, 64) + ":" + strconv.FormatInt(it.History, 10) + ":" + strconv.FormatInt(it.Upper, 10)
		if it.Recency != int64(i) {
			s += ":" + strconv.FormatInt(it.Recency, 10)
		}
		if it.Fixed {
			s += ":fixed"
		}
		parts[i] = s
	}
	return strings.Join(parts, ",")
}

// Flags returns o as the flags of 'tailbound mdp onestep' (no leading
// command name), each value as the flag reads it back.
func (o OneStepOptions) Flags() string {
	return fmt.Sprintf("--items %s --capacity %d --block-size %d --xi-tokens %s --prompt %s",
		o.Items, o.Capacity, o.BlockSize, strconv.FormatFloat(o.Xi, 'g', -1, 64), o.Prompt)
}

// Problem reads and validates o; errors are *option.Error naming the flags
// at fault.
func (o OneStepOptions) Problem() (*Problem, error) {
	params, err := o.params()
	if err != nil {
		return nil, err
	}
	specs, err := ParseItems(o.Items)
	if err != nil {
		return nil, err
	}
	if o.Prompt == "online" {
		return nil, option.Errorf("prompt", "online has no distribution to solve with; give pmf:TOKENS:PROB,… or another fixed distribution")
	}
	prompt, err := ParsePrompt(o.Prompt)
	if err != nil {
		return nil, option.Wrap("prompt", err)
	}
	p := &Problem{Params: params, Prompt: prompt}
	var fixed int64
	var work float64 // in float64: a huge capacity must not overflow the count
	blocks := float64(params.Blocks())
	for i, s := range specs {
		if s.Upper%params.BlockSize != 0 {
			return nil, &option.Error{Flags: []string{"items", "block-size"},
				Err: fmt.Errorf("item %d: bound %d tokens is not a whole number of %d-token blocks", i, s.Upper, params.BlockSize)}
		}
		if s.Fixed {
			fixed += s.Upper
		}
		work += (blocks + 1) * (float64(s.Upper/params.BlockSize) + 1)
		p.Items = append(p.Items, Item{LogWeight: math.Log(s.Rate), History: s.History, Upper: s.Upper, Recency: s.Recency, Fixed: s.Fixed})
	}
	if fixed > params.Capacity {
		return nil, &option.Error{Flags: []string{"items", "capacity"},
			Err: fmt.Errorf("fixed items hold %d tokens, more than the capacity %d", fixed, params.Capacity)}
	}
	if work > MaxOneStepWork {
		return nil, &option.Error{Flags: []string{"items", "capacity"},
			Err: fmt.Errorf("the exact dynamic program would take %.3g steps (Σ over items of (C/B + 1)·(bound/B + 1)), more than %d", work, MaxOneStepWork)}
	}
	return p, nil
}

// params validates the capacity, block size and ξ, naming their flags.
func (o OneStepOptions) params() (instance.Params, error) {
	p := instance.Params{Capacity: o.Capacity, BlockSize: o.BlockSize, Xi: o.Xi}
	if err := instance.CheckFlags("capacity", p.Capacity, p.BlockSize); err != nil {
		return p, err
	}
	if math.IsNaN(p.Xi) || math.IsInf(p.Xi, 0) {
		return p, option.Errorf("xi-tokens", "must be a finite number of tokens, got %v", p.Xi)
	}
	return p, nil
}

// OneStepSolution is a one-step problem solved by ET-LRU's greedy and by
// the exact dynamic program. Objectives are Σ_i λ_i·E[(H_i + Q − y_i − ξ)⁺]
// in tokens per second (rates per s times tokens): the expected TEL of the
// next step per second of step length.
type OneStepSolution struct {
	Problem *Problem
	// Greedy and Optimum are the tokens kept per item by Greedy and Exact.
	Greedy, Optimum []int64
	// GreedyObjective is the objective of Greedy's decision and
	// OptimumObjective the dynamic program's minimum, tokens per second.
	GreedyObjective, OptimumObjective float64
}

// SolveOneStep reads o and solves the problem both ways.
func SolveOneStep(o OneStepOptions) (*OneStepSolution, error) {
	p, err := o.Problem()
	if err != nil {
		return nil, err
	}
	s := &OneStepSolution{Problem: p}
	if s.Greedy, err = Greedy(p); err != nil {
		return nil, err
	}
	if s.Optimum, s.OptimumObjective, err = Exact(p); err != nil {
		return nil, err
	}
	s.GreedyObjective = p.Objective(s.Greedy)
	return s, nil
}

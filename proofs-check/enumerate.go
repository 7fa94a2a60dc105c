// Small-scope exhaustive checking: every trace instance up to a stated
// size, checked before any random one, so that a counterexample that small
// is found whatever the seed (issue 26: Theorem 1's 4-turn block
// counterexample fails about 0.3 % of random draws and was missed by the
// default run).

package proofscheck

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/proofs-check/claim"
)

// TraceSpace bounds a set of trace instances that EachTrace enumerates in
// full. Conversations are numbered in order of first appearance (a
// relabelling changes no TEL), so a trace of K turns over exactly m
// conversations is one of the S(K, m) set partitions of its turns
// (Stirling numbers of the second kind).
type TraceSpace struct {
	// MinTurns and MaxTurns bound the number of turns (MinTurns ≥ 1).
	MinTurns, MaxTurns int
	// MaxConvs is the largest number of conversations.
	MaxConvs int
	// MaxPrompt is the largest prompt length, tokens; prompts run from 1.
	MaxPrompt int64
	// MaxResponse is the largest response length, tokens; responses run
	// from 0, except that the last turn's response is always 0 (no turn
	// follows it, so it changes nothing).
	MaxResponse int64
	// Blocks are the block sizes, tokens.
	Blocks []int64
	// MaxCapacityBlocks is the largest capacity, blocks; capacities run
	// from 1 block (at 0 every schedule caches nothing).
	MaxCapacityBlocks int64
	// Xis are the thresholds ξ, tokens.
	Xis []float64
	// Forced selects forced caching for every instance; Both enumerates
	// every instance in both modes (then Forced is ignored).
	Forced, Both bool
}

// Bound states the space in words, for the report's "exhaustive up to".
func (s TraceSpace) Bound() string {
	mode := "optional caching"
	switch {
	case s.Both:
		mode = "optional and forced caching"
	case s.Forced:
		mode = "forced caching"
	}
	return fmt.Sprintf("%d–%d turns, ≤ %d conversations, prompts 1–%d, responses 0–%d (last 0), B ∈ {%s}, C = 1–%d blocks, ξ ∈ {%s}, %s",
		s.MinTurns, s.MaxTurns, s.MaxConvs, s.MaxPrompt, s.MaxResponse, joinInts(s.Blocks), s.MaxCapacityBlocks, joinXis(s.Xis), mode)
}

func joinInts(v []int64) string {
	var p []string
	for _, x := range v {
		p = append(p, strconv.FormatInt(x, 10))
	}
	return strings.Join(p, ",")
}

// joinXis writes ξ values, collapsing a run of consecutive whole or
// half-integral values spaced by 1 into "a–b".
func joinXis(v []float64) string {
	if len(v) > 2 {
		run := true
		for i := 1; i < len(v); i++ {
			run = run && v[i] == v[i-1]+1
		}
		if run {
			return fmt.Sprintf("%v–%v (step 1)", v[0], v[len(v)-1])
		}
	}
	var p []string
	for _, x := range v {
		p = append(p, strconv.FormatFloat(x, 'g', -1, 64))
	}
	return strings.Join(p, ",")
}

// xiRange returns lo, lo+1, …, hi.
func xiRange(lo, hi float64) []float64 {
	var out []float64
	for x := lo; x <= hi; x++ {
		out = append(out, x)
	}
	return out
}

// EachTrace calls yield on every instance of s, smallest number of turns
// first, until yield returns false. solve is the instance's Solve field
// (the flags of its runnable command). The instances are fresh values the
// caller may keep.
func (s TraceSpace) EachTrace(solve string, yield func(*TraceInstance) bool) {
	modes := []bool{s.Forced}
	if s.Both {
		modes = []bool{false, true}
	}
	for k := max(s.MinTurns, 1); k <= s.MaxTurns; k++ {
		turns := make([]TinyTurn, k)
		// conv assigns turn i's conversation given the number of
		// conversations m seen so far: a restricted growth string.
		var conv func(i, m int) bool
		var lengths func(i int) bool
		conv = func(i, m int) bool {
			if i == k {
				return lengths(0)
			}
			for c := 0; c <= m && c < s.MaxConvs; c++ {
				turns[i].Conv = c
				if !conv(i+1, max(m, c+1)) {
					return false
				}
			}
			return true
		}
		lengths = func(i int) bool {
			if i == k {
				return s.params(turns, solve, modes, yield)
			}
			maxR := s.MaxResponse
			if i == k-1 {
				maxR = 0
			}
			for p := int64(1); p <= s.MaxPrompt; p++ {
				for r := int64(0); r <= maxR; r++ {
					turns[i].Prompt, turns[i].Response = p, r
					if !lengths(i + 1) {
						return false
					}
				}
			}
			return true
		}
		if !conv(0, 0) {
			return
		}
	}
}

// params yields turns under every block size, capacity, ξ and mode of s.
func (s TraceSpace) params(turns []TinyTurn, solve string, modes []bool, yield func(*TraceInstance) bool) bool {
	for _, b := range s.Blocks {
		for c := int64(1); c <= s.MaxCapacityBlocks; c++ {
			for _, xi := range s.Xis {
				for _, f := range modes {
					in := &TraceInstance{Turns: append([]TinyTurn(nil), turns...),
						Params: instance.Params{BlockSize: b, Capacity: c * b, Xi: xi, Forced: f}, Solve: solve}
					if !yield(in) {
						return false
					}
				}
			}
		}
	}
	return true
}

// Enumeration returns s as a claim's exhaustive set, each instance with
// solve as its Solve field.
func (s TraceSpace) Enumeration(solve string) *claim.Enumeration {
	return &claim.Enumeration{Bound: s.Bound(), Each: func(yield func(claim.Instance) bool) {
		s.EachTrace(solve, func(in *TraceInstance) bool { return yield(in) })
	}}
}

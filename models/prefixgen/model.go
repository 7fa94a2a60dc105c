// Package prefixgen is a generative model of a serving cluster's traffic at
// block level, after the workload study (seed 000) and the prefix-sharing
// study (seed 001): sessions arrive at a diurnal Poisson rate, each of a
// request category with its own length laws, next-turn probabilities and
// reuse-time law; a session's first prompt may start with shared prefixes
// (system prompts, tool prefixes) drawn from a prefix tree with Zipf
// popularity; each follow-up turn re-sends the whole context (previous
// input and output) plus a new increment. Requests are written as a
// Mooncake block-hash trace. The model is a JSON document (Model); Fit
// estimates it from a real trace and Generator streams a trace from it.
package prefixgen

import (
	"errors"
	"fmt"
	"math"
)

// BlockTokens is the block size of the generated traces, tokens: the
// Mooncake format's 512.
const BlockTokens = 512

// Day is the period of the diurnal cycle, seconds.
const Day = 86400.0

// Model is the whole generative model. Every time is in seconds, every
// length in tokens.
type Model struct {
	// SessionsPerS is the mean session (conversation) arrival rate over a
	// day, sessions per second.
	SessionsPerS float64 `json:"sessions_per_s"`
	// Diurnal shapes the arrival rate and the reuse times over the day.
	Diurnal Diurnal `json:"diurnal"`
	// Tree is the prefix tree of shared system prompts and tool prefixes.
	Tree Tree `json:"prefix_tree"`
	// Categories are the request categories; a session draws one with
	// probability proportional to its Weight.
	Categories []Category `json:"categories"`
}

// Diurnal is the time-of-day modulation: at trace time t (s) the phase is
// φ(t) = cos(2π(StartHour·3600 + t − PeakHour·3600)/Day), 1 at the peak
// hour, −1 twelve hours away. The session rate is SessionsPerS·(1 +
// Amplitude·φ(t)); a category's mean reuse time is MeanS·(1 +
// GapShift·φ(t)).
type Diurnal struct {
	// Amplitude is the relative swing of the arrival rate, in [0, 1).
	Amplitude float64 `json:"amplitude"`
	// PeakHour is the hour of the day (0–24) of the highest arrival rate.
	PeakHour float64 `json:"peak_hour"`
	// StartHour is the hour of the day at trace time 0.
	StartHour float64 `json:"start_hour"`
}

// Phase returns φ(t) for trace time t seconds.
func (d Diurnal) Phase(t float64) float64 {
	return math.Cos(2 * math.Pi * ((d.StartHour-d.PeakHour)*3600 + t) / Day)
}

// Tree is a prefix tree of shared prefixes: level 1 holds Fanout system
// prompts, each level-1 node has Levels[1].Fanout children (tool prefixes),
// and so on. A session that uses the tree (Category.PrefixProb) descends
// into level 1, then into each further level i with probability
// Levels[i].Prob, choosing among a node's children by Zipf popularity of
// exponent Levels[i].Zipf (child of rank r with probability ∝ r^−Zipf).
// Every node holds Blocks full blocks of its level, so a prefix ends on a
// block boundary.
type Tree struct {
	Levels []Level `json:"levels"`
}

// Level is one level of the prefix tree.
type Level struct {
	// Fanout is the number of children of each node of the level above
	// (of the root, for level 1).
	Fanout int `json:"fanout"`
	// Blocks is each node's length in blocks.
	Blocks int `json:"blocks"`
	// Zipf is the popularity exponent (≥ 0; 0 is uniform).
	Zipf float64 `json:"zipf"`
	// Prob is the probability of descending into this level from the one
	// above; level 1's is unused (Category.PrefixProb decides).
	Prob float64 `json:"prob"`
}

// Category is a request category (the study's request type: text, file,
// image, search, API, or an agentic loop).
type Category struct {
	// Name names the category.
	Name string `json:"name"`
	// Weight is its relative share of sessions (> 0).
	Weight float64 `json:"weight"`
	// PrefixProb is the probability that a session of the category starts
	// with a prefix from the tree.
	PrefixProb float64 `json:"prefix_prob"`
	// First is the law of the first turn's own tokens (after the shared
	// prefix).
	First LogNormal `json:"first_tokens"`
	// Increment is the law of a follow-up turn's new tokens: its input is
	// the previous input + the previous output + the increment.
	Increment LogNormal `json:"increment_tokens"`
	// Output is the law of a response's length.
	Output LogNormal `json:"output_tokens"`
	// NextTurn[k−1] is the probability that turn k is followed by another
	// turn; the last entry applies to every later turn.
	NextTurn []float64 `json:"next_turn"`
	// Gap is the law of the time between a turn's arrival and the next
	// turn's (the reuse time of the session's context).
	Gap Gap `json:"reuse_time"`
	// MaxContextTokens ends a session whose next input would exceed it (0:
	// no limit).
	MaxContextTokens int64 `json:"max_context_tokens"`
}

// Gap is a reuse-time law, seconds, at time t of the earlier turn: with
// Law "exponential" (the workload study's, §3.4) a shifted exponential
// OffsetS + Exp(mean MeanS·(1 + GapShift·φ(t))); with Law "lognormal"
// OffsetS + exp(N(Mu, Sigma²))·(1 + GapShift·φ(t)).
type Gap struct {
	// Law is "exponential" (also when empty) or "lognormal".
	Law     string  `json:"law"`
	OffsetS float64 `json:"offset_s"`
	// MeanS is the exponential's mean, seconds.
	MeanS float64 `json:"mean_s"`
	// Mu and Sigma are the log-normal's parameters (log seconds).
	Mu    float64 `json:"mu,omitempty"`
	Sigma float64 `json:"sigma,omitempty"`
	// GapShift is the relative change of the mean over the day (|·| < 1).
	GapShift float64 `json:"diurnal_shift"`
}

// LogNormal is a length law in tokens: round(exp(N(Mu, Sigma²))) clamped to
// [Min, Max] (Max 0: no upper bound but MaxTokens); with W2 > 0 a mixture
// of two log-normals, the second, N(Mu2, Sigma2²), drawn with probability
// W2.
type LogNormal struct {
	Mu     float64 `json:"mu"`
	Sigma  float64 `json:"sigma"`
	Min    int64   `json:"min"`
	Max    int64   `json:"max"`
	W2     float64 `json:"w2,omitempty"`
	Mu2    float64 `json:"mu2,omitempty"`
	Sigma2 float64 `json:"sigma2,omitempty"`
}

// MaxTimeS is the latest arrival time a trace may reach, seconds (10^12,
// well inside an int64 of milliseconds).
const MaxTimeS = 1e12

// MaxTokens bounds every drawn length (2^24 tokens): a law's Max, when
// given, must not pass it.
const MaxTokens = int64(1) << 24

// MaxInputTokens bounds a request's input (2^26 tokens, a chain of 2^17
// blocks): a session whose next input would pass it ends.
const MaxInputTokens = int64(1) << 26

// maxTreeNodes bounds the prefix tree's blocks, so that its block ids
// stay a small reserved range (and its tables small).
const maxTreeNodes = 1 << 20

// Validate reports a model the generator cannot use, naming the field.
func (m *Model) Validate() error {
	switch {
	case !(m.SessionsPerS >= 1e-9 && m.SessionsPerS <= 1e9):
		return fmt.Errorf("sessions_per_s: %v must be in [1e-9, 1e9]", m.SessionsPerS)
	case !(m.Diurnal.Amplitude >= 0 && m.Diurnal.Amplitude < 1):
		return fmt.Errorf("diurnal.amplitude: %v must be in [0, 1)", m.Diurnal.Amplitude)
	case !finite(m.Diurnal.PeakHour) || !finite(m.Diurnal.StartHour):
		return errors.New("diurnal: peak_hour and start_hour must be finite")
	case len(m.Categories) == 0:
		return errors.New("categories: at least one is needed")
	}
	nodes := 1.0
	for i, l := range m.Tree.Levels {
		nodes *= float64(l.Fanout)
		switch {
		case l.Fanout < 1:
			return fmt.Errorf("prefix_tree.levels[%d].fanout: %d must be ≥ 1", i, l.Fanout)
		case l.Blocks < 1:
			return fmt.Errorf("prefix_tree.levels[%d].blocks: %d must be ≥ 1", i, l.Blocks)
		case !(l.Zipf >= 0) || l.Zipf > 100:
			return fmt.Errorf("prefix_tree.levels[%d].zipf: %v must be in [0, 100]", i, l.Zipf)
		case !(l.Prob >= 0 && l.Prob <= 1):
			return fmt.Errorf("prefix_tree.levels[%d].prob: %v must be in [0, 1]", i, l.Prob)
		case nodes > maxTreeNodes || nodes*float64(l.Blocks) > maxTreeNodes:
			return fmt.Errorf("prefix_tree.levels[%d]: the tree passes %d blocks", i, maxTreeNodes)
		}
	}
	for i, c := range m.Categories {
		at := fmt.Sprintf("categories[%d] (%s)", i, c.Name)
		switch {
		case !(c.Weight > 0) || math.IsInf(c.Weight, 0):
			return fmt.Errorf("%s.weight: %v must be finite and > 0", at, c.Weight)
		case !(c.PrefixProb >= 0 && c.PrefixProb <= 1):
			return fmt.Errorf("%s.prefix_prob: %v must be in [0, 1]", at, c.PrefixProb)
		case c.PrefixProb > 0 && len(m.Tree.Levels) == 0:
			return fmt.Errorf("%s.prefix_prob: %v > 0 but the prefix tree has no level", at, c.PrefixProb)
		case len(c.NextTurn) == 0:
			return fmt.Errorf("%s.next_turn: at least one probability is needed", at)
		case !(c.Gap.OffsetS >= 0 && c.Gap.OffsetS <= 1e9) || !(c.Gap.MeanS >= 0 && c.Gap.MeanS <= 1e9):
			return fmt.Errorf("%s.reuse_time: offset_s %v and mean_s %v must be in [0, 1e9] s", at, c.Gap.OffsetS, c.Gap.MeanS)
		case c.Gap.Law != "" && c.Gap.Law != "exponential" && c.Gap.Law != "lognormal":
			return fmt.Errorf("%s.reuse_time.law: %q, want exponential or lognormal", at, c.Gap.Law)
		case !finite(c.Gap.Mu) || c.Gap.Mu > 30 || c.Gap.Mu < -30 || !(c.Gap.Sigma >= 0) || c.Gap.Sigma > 10:
			return fmt.Errorf("%s.reuse_time: mu %v must be in [−30, 30], sigma %v in [0, 10]", at, c.Gap.Mu, c.Gap.Sigma)
		case !(math.Abs(c.Gap.GapShift) < 1):
			return fmt.Errorf("%s.reuse_time.diurnal_shift: %v must be in (−1, 1)", at, c.Gap.GapShift)
		case c.MaxContextTokens < 0:
			return fmt.Errorf("%s.max_context_tokens: %d must be ≥ 0", at, c.MaxContextTokens)
		}
		for k, p := range c.NextTurn {
			last := k == len(c.NextTurn)-1
			if !(p >= 0 && p <= 1) || last && p == 1 {
				return fmt.Errorf("%s.next_turn[%d]: %v must be in [0, 1] (the last, which repeats, in [0, 1))", at, k, p)
			}
		}
		for _, l := range []struct {
			name string
			d    LogNormal
		}{{"first_tokens", c.First}, {"increment_tokens", c.Increment}, {"output_tokens", c.Output}} {
			if err := l.d.validate(); err != nil {
				return fmt.Errorf("%s.%s: %w", at, l.name, err)
			}
			if l.name == "first_tokens" && l.d.Min < 1 {
				return fmt.Errorf("%s.first_tokens: min %d must be ≥ 1 token (a prompt is never empty)", at, l.d.Min)
			}
		}
	}
	return nil
}

func (d LogNormal) validate() error {
	switch {
	case !finite(d.Mu) || d.Mu > 30 || d.Mu < -30:
		return fmt.Errorf("mu %v must be finite, in [−30, 30]", d.Mu)
	case !(d.Sigma >= 0) || d.Sigma > 10:
		return fmt.Errorf("sigma %v must be in [0, 10]", d.Sigma)
	case !(d.W2 >= 0 && d.W2 < 1):
		return fmt.Errorf("w2 %v must be in [0, 1)", d.W2)
	case !finite(d.Mu2) || d.Mu2 > 30 || d.Mu2 < -30 || !(d.Sigma2 >= 0) || d.Sigma2 > 10:
		return fmt.Errorf("mu2 %v must be in [−30, 30], sigma2 %v in [0, 10]", d.Mu2, d.Sigma2)
	case d.Min < 0 || d.Min > MaxTokens:
		return fmt.Errorf("min %d must be in [0, 2^24] tokens", d.Min)
	case d.Max < 0 || d.Max > MaxTokens || (d.Max > 0 && d.Max < d.Min):
		return fmt.Errorf("max %d must be 0 (none) or in [min, 2^24] tokens", d.Max)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// MeanTurns returns the expected number of turns of a session of category
// c ignoring MaxContextTokens: Σ_k Π_{j<k} NextTurn[j].
func (c Category) MeanTurns() float64 {
	// With the last probability p repeating, the tail after the listed
	// entries is geometric: Π·(1/(1 − p)).
	s, prod := 0.0, 1.0
	for k := 0; k < len(c.NextTurn)-1; k++ {
		s += prod
		prod *= c.NextTurn[k]
	}
	return s + prod/(1-c.NextTurn[len(c.NextTurn)-1])
}

// nextTurn returns the probability that turn k (1-based) has a successor.
func (c Category) nextTurn(k int) float64 {
	if k > len(c.NextTurn) {
		k = len(c.NextTurn)
	}
	return c.NextTurn[k-1]
}

package birthdeath

import (
	"fmt"
	"math"
	"sort"

	"github.com/tailbound/tailbound/models/trace"
)

// Fitted is a birth–death model fitted to a trace, with the statistics the
// fit used.
type Fitted struct {
	// Params are the fitted parameters: LambdaConv (births per second),
	// Mu (deaths per second), one rate class (turns per second while
	// alive), log-normal prompt and response laws (tokens) and Duration,
	// the span of the trace's births in seconds.
	Params Params
	// Conversations is the number of conversations of the trace.
	Conversations int
	// MeanFollowUps is the mean number of turns after the first, per
	// conversation.
	MeanFollowUps float64
	// MeanGapS is the mean time between consecutive turns of a
	// conversation, seconds.
	MeanGapS float64
	// Prompts and Responses are the trace's lengths (tokens), the
	// empirical laws that WithEmpirical puts in place of the log-normal
	// ones.
	Prompts, Responses Empirical
}

// WithEmpirical returns the fitted parameters with the trace's empirical
// prompt and response laws instead of the log-normal fits (for traces whose
// lengths are far from log-normal, such as canonical prompts with many
// 1-token fallbacks).
func (f Fitted) WithEmpirical() Params {
	p := f.Params
	p.Prompt, p.Response = f.Prompts, f.Responses
	return p
}

// Fit fits the birth–death model to tr by maximum likelihood, ignoring the
// censoring at the trace's end:
//
//   - births: Poisson, so λ_conv = conversations / (last − first birth time);
//   - turns and death: a live conversation turns at rate λ̄ and dies at rate
//     μ, so after each turn another follows with probability
//     p = λ̄/(λ̄ + μ) (the follow-up count is geometric with mean p/(1 − p))
//     after a gap ~ Exp(λ̄ + μ); hence p = m/(1 + m) from the mean
//     follow-up count m, λ̄ + μ = 1/ḡ from the mean gap ḡ, λ̄ = p/ḡ and
//     μ = (1 − p)/ḡ;
//   - prompt and response lengths: log-normal, μ and σ the mean and
//     standard deviation of log(max(length, 1)).
//
// The trace needs at least two conversations born at different times and
// one follow-up turn.
func Fit(tr *trace.Trace) (Fitted, error) {
	var f Fitted
	n := tr.Conversations()
	if n < 2 || len(tr.Turns) < 3 {
		return f, fmt.Errorf("birth–death fit: need ≥ 2 conversations and ≥ 3 turns, got %d and %d", n, len(tr.Turns))
	}
	last := make([]float64, n)
	seen := make([]bool, n)
	var first, lastBirth float64
	var gaps float64
	var follow int
	var lp, lr []float64
	for i, t := range tr.Turns {
		if t.Conv < 0 || t.Conv >= n {
			return f, fmt.Errorf("birth–death fit: turn %d: conversation id %d outside 0..%d", i, t.Conv, n-1)
		}
		if !seen[t.Conv] {
			seen[t.Conv] = true
			if t.Conv == 0 {
				first = t.Time
			}
			lastBirth = t.Time
		} else {
			gaps += t.Time - last[t.Conv]
			follow++
		}
		last[t.Conv] = t.Time
		f.Prompts.Values = append(f.Prompts.Values, t.Prompt)
		f.Responses.Values = append(f.Responses.Values, t.Response)
		lp = append(lp, math.Log(math.Max(float64(t.Prompt), 1)))
		lr = append(lr, math.Log(math.Max(float64(t.Response), 1)))
	}
	span := lastBirth - first
	if !(span > 0) {
		return f, fmt.Errorf("birth–death fit: every conversation is born at the same time")
	}
	if follow == 0 || !(gaps > 0) {
		return f, fmt.Errorf("birth–death fit: no follow-up turn with a positive gap: turn rate and death rate cannot be told apart")
	}
	m := float64(follow) / float64(n)
	g := gaps / float64(follow)
	p := m / (1 + m)
	f.Conversations, f.MeanFollowUps, f.MeanGapS = n, m, g
	pm, ps := meanSD(lp)
	rm, rs := meanSD(lr)
	f.Params = Params{
		LambdaConv: float64(n-1) / span,
		Mu:         (1 - p) / g,
		Classes:    []RateClass{{Rate: p / g, Weight: 1}},
		Prompt:     LogNormal{Mu: pm, Sigma: ps, Min: 1},
		Response:   LogNormal{Mu: rm, Sigma: rs, Min: 0},
		Duration:   span,
	}
	return f, nil
}

func meanSD(xs []float64) (float64, float64) {
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		v /= float64(len(xs) - 1)
	}
	return m, math.Sqrt(v)
}

// Shape is a trace's per-conversation distributions that a fit should
// reproduce: turns per conversation, conversation length (seconds from
// its first to its last turn) and inter-turn gaps (seconds).
type Shape struct {
	Turns, LengthS, GapsS []float64
}

// ShapeOf returns tr's per-conversation distributions, each sorted.
func ShapeOf(tr *trace.Trace) Shape {
	n := tr.Conversations()
	count := make([]float64, n)
	firstT := make([]float64, n)
	lastT := make([]float64, n)
	var s Shape
	for _, t := range tr.Turns {
		if t.Conv < 0 || t.Conv >= n {
			continue
		}
		if count[t.Conv] == 0 {
			firstT[t.Conv] = t.Time
		} else {
			s.GapsS = append(s.GapsS, t.Time-lastT[t.Conv])
		}
		count[t.Conv]++
		lastT[t.Conv] = t.Time
	}
	for c := 0; c < n; c++ {
		if count[c] > 0 {
			s.Turns = append(s.Turns, count[c])
			s.LengthS = append(s.LengthS, lastT[c]-firstT[c])
		}
	}
	sort.Float64s(s.Turns)
	sort.Float64s(s.LengthS)
	sort.Float64s(s.GapsS)
	return s
}

// KS is the two-sample Kolmogorov–Smirnov distance sup_x |F_a(x) − F_b(x)|
// between the empirical distributions of sorted samples a and b (NaN when
// either is empty). Ties are handled: both CDFs step at a shared value
// before they are compared.
func KS(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	var i, j int
	var d float64
	na, nb := float64(len(a)), float64(len(b))
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/na-float64(j)/nb))
	}
	return d
}

// GoodnessOfFit returns the KS distances between tr and twin (a trace
// generated from the fit) for turns per conversation, conversation length
// and inter-turn gaps.
func GoodnessOfFit(tr, twin *trace.Trace) (turns, length, gaps float64) {
	a, b := ShapeOf(tr), ShapeOf(twin)
	return KS(a.Turns, b.Turns), KS(a.LengthS, b.LengthS), KS(a.GapsS, b.GapsS)
}

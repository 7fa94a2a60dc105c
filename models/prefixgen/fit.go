package prefixgen

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"sort"

	"github.com/tailbound/tailbound/models/importer"
)

// FitOptions tune Fit.
type FitOptions struct {
	// NextTurns is how many next-turn probabilities to estimate per
	// category (turns 1 … NextTurns−1 separately, later turns pooled);
	// default 4.
	NextTurns int
	// MinShare is the number of sessions whose first turns must start with
	// a block chain for it to count as a shared prefix; default
	// max(2, ⌈sessions/1000⌉) when 0.
	MinShare int
	// TreeDepth bounds the shared prefixes looked for, blocks of the
	// trace; default the larger of 64 blocks and 4,096 tokens.
	TreeDepth int
	// Levels is the most prefix-tree levels fitted; default 2.
	Levels int
	// GapLaw is the reuse-time law fitted: exponential (the workload
	// study's), lognormal, or best (the one of higher likelihood; the
	// default when empty).
	GapLaw string
	// LengthLaw is the length laws fitted: lognormal, mixture (of two
	// log-normals) or best (the mixture when the Bayesian information
	// criterion prefers it; the default when empty).
	LengthLaw string
}

func (o *FitOptions) defaults() {
	if o.NextTurns <= 0 {
		o.NextTurns = 4
	}
	if o.Levels <= 0 {
		o.Levels = 2
	}
}

// Fitted is a model fitted to a trace with what the fit saw.
type Fitted struct {
	// Model is the fitted model.
	Model Model
	// Requests and Sessions count the trace's requests and sessions
	// (conversations as the importer links them).
	Requests, Sessions int64
	// SpanS is the time from the first to the last request, seconds.
	SpanS float64
	// DiurnalFitted says whether the trace spans a day, so that the
	// diurnal amplitude, peak hour and reuse-time shifts were estimated
	// (else they are 0).
	DiurnalFitted bool
	// Per category (in the model's order): sessions and follow-up turns.
	CategorySessions, CategoryFollowUps []int64
	// GapLogLik holds per category the mean log-likelihood per reuse time
	// (log of a density in 1/s) of the exponential and the log-normal
	// fits, [0] and [1].
	GapLogLik [][2]float64
	// PrefixSessions counts the sessions that start with a fitted shared
	// prefix; MinShare is the share threshold used (sessions).
	PrefixSessions int64
	MinShare       int
}

// fitConv is a conversation's latest request, for the follow-up statistics.
type fitConv struct {
	t             float64
	input, output int64
	turn          int32
	cat           int32
}

// firstTurn is a session's first request, kept until the tree is fitted.
type firstTurn struct {
	cat   int32
	node  int32 // deepest trie node of its chain (−1: none)
	input int64
}

// logAcc accumulates log-lengths for a log-normal fit.
type logAcc struct {
	xs     []float64 // ln max(length, 1)
	lo, hi int64
}

func (a *logAcc) add(v int64) {
	if len(a.xs) == 0 || v < a.lo {
		a.lo = v
	}
	if len(a.xs) == 0 || v > a.hi {
		a.hi = v
	}
	a.xs = append(a.xs, math.Log(float64(max(v, 1))))
}

// law returns the fitted length law, bounded by the sample's extremes (min
// at least minLo): the log-normal of the logs' mean and standard deviation
// or, with mode "mixture", or "best" when the Bayesian information
// criterion prefers it (2·Δ log-likelihood > 3·ln n for its three more
// parameters), the two-log-normal mixture fitted by EM (MixtureEM).
func (a *logAcc) law(minLo int64, mode string) LogNormal {
	if len(a.xs) == 0 {
		return LogNormal{Min: minLo, Max: minLo}
	}
	lo := min(max(a.lo, minLo), MaxTokens)
	d := LogNormal{Min: lo, Max: min(max(a.hi, lo), MaxTokens)}
	m, s := meanSD(a.xs)
	d.Mu, d.Sigma = m, s
	if mode == "lognormal" || len(a.xs) < 10 {
		return d
	}
	// EM on an evenly spaced subsample of at most 20,000 lengths (the fit
	// is as good at that size and the cost bounded); both likelihoods on
	// the whole sample.
	sub := a.xs
	if step := (len(a.xs) + 19999) / 20000; step > 1 {
		sub = make([]float64, 0, 20000)
		for i := 0; i < len(a.xs); i += step {
			sub = append(sub, a.xs[i])
		}
	}
	mix, _ := MixtureEM(sub)
	ll2 := mixtureLogLik(a.xs, mix)
	ll1 := normalLogLik(a.xs, m, s)
	n := float64(len(a.xs))
	if mode == "mixture" || 2*(ll2-ll1) > 3*math.Log(n) {
		d.Mu, d.Sigma, d.W2, d.Mu2, d.Sigma2 = mix[0], mix[1], mix[2], mix[3], mix[4]
	}
	return d
}

// meanSD returns the mean and the maximum-likelihood standard deviation.
func meanSD(xs []float64) (float64, float64) {
	var s, ss float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)))
}

// minMixSD floors a mixture component's standard deviation (log tokens):
// a sample with many equal lengths would otherwise collapse a component
// onto them and its likelihood grow without bound.
const minMixSD = 0.05

func normPDF(x, m, s float64) float64 {
	z := (x - m) / s
	return math.Exp(-z*z/2) / (s * math.Sqrt(2*math.Pi))
}

func normalLogLik(xs []float64, m, s float64) float64 {
	s = math.Max(s, minMixSD)
	var ll float64
	for _, x := range xs {
		ll += math.Log(normPDF(x, m, s))
	}
	return ll
}

func mixtureLogLik(xs []float64, p [5]float64) float64 {
	var ll float64
	for _, x := range xs {
		ll += math.Log((1-p[2])*normPDF(x, p[0], p[1]) + p[2]*normPDF(x, p[3], p[4]))
	}
	return ll
}

// MixtureEM fits a mixture of two normals to xs by expectation–
// maximization, started from the lower and upper halves of the sorted
// sample, the standard deviations floored at 0.05: it returns μ1, σ1, w2,
// μ2, σ2 (component 1 the one of smaller mean) and the log-likelihood.
func MixtureEM(xs []float64) ([5]float64, float64) {
	ys := append([]float64(nil), xs...)
	sort.Float64s(ys)
	h := len(ys) / 2
	m1, s1 := meanSD(ys[:h])
	m2, s2 := meanSD(ys[h:])
	s1, s2 = math.Max(s1, minMixSD), math.Max(s2, minMixSD)
	w := 0.5
	prev := math.Inf(-1)
	var ll float64
	for it := 0; it < 300; it++ {
		var n2, a1, a2, b1, b2 float64
		ll = 0
		for _, x := range xs {
			p1, p2 := (1-w)*normPDF(x, m1, s1), w*normPDF(x, m2, s2)
			t := p1 + p2
			if !(t > 0) {
				t = math.SmallestNonzeroFloat64
				p2 = t / 2
			}
			ll += math.Log(t)
			r := p2 / t
			n2 += r
			a1 += (1 - r) * x
			a2 += r * x
		}
		n := float64(len(xs))
		if n2 < 1 || n-n2 < 1 {
			break
		}
		m1, m2 = a1/(n-n2), a2/n2
		for _, x := range xs {
			p1, p2 := (1-w)*normPDF(x, m1, s1), w*normPDF(x, m2, s2)
			r := 0.5
			if t := p1 + p2; t > 0 {
				r = p2 / t
			}
			b1 += (1 - r) * (x - m1) * (x - m1)
			b2 += r * (x - m2) * (x - m2)
		}
		s1 = math.Max(math.Sqrt(b1/(n-n2)), minMixSD)
		s2 = math.Max(math.Sqrt(b2/n2), minMixSD)
		w = n2 / n
		if ll-prev < 1e-7*n {
			break
		}
		prev = ll
	}
	if m2 < m1 {
		m1, s1, m2, s2, w = m2, s2, m1, s1, 1-w
	}
	return [5]float64{m1, s1, w, m2, s2}, ll
}

// catAcc accumulates one category's statistics.
type catAcc struct {
	name          string
	sessions      int64
	turns         []int64 // requests at turn k (index k−1), turns ≥ NextTurns+1 pooled in the last slot
	first, inc    logAcc
	output        logAcc
	gaps          []float64 // reuse times, s
	gapAt         []float64 // time of the earlier turn, s
	prefixed      int64
	minGap, sumGp float64 // least and summed reuse time, s
}

// trie holds the first turns' chains, to find shared prefixes.
type trie struct {
	ids   map[[2]int64]int32 // (parent, hash) → node
	count []int32            // first turns through the node
	par   []int32
}

func (t *trie) insert(h []int64) int32 {
	n := int32(-1)
	for _, x := range h {
		k := [2]int64{int64(n), x}
		c, ok := t.ids[k]
		if !ok {
			c = int32(len(t.count))
			t.ids[k] = c
			t.count = append(t.count, 0)
			t.par = append(t.par, n)
		}
		t.count[c]++
		n = c
	}
	return n
}

// Fit estimates a model from the trace src (categories from its request
// types; a trace without types has one category, "text"):
//
//   - sessions per second: (sessions − 1)/(span of session starts); with a
//     trace spanning a day or more, the diurnal amplitude and peak hour by
//     the first Fourier coefficient of the session start times over the
//     day (trace time 0 taken as midnight);
//   - per category: the share of sessions; next-turn probabilities
//     p_k = n_{k+1}/n_k (n_k: requests at turn k), later turns pooled;
//     log-normal laws by the mean and standard deviation of the logs of
//     first-turn own tokens (input − shared prefix), follow-up increments
//     (input − previous input − previous output, < 1 taken as 1) and
//     outputs, bounded by the extremes seen, or two-log-normal mixtures
//     (LengthLaw; logAcc.law); the reuse time as a shifted
//     exponential by maximum likelihood (offset the least gap, mean the
//     mean gap − offset) or a log-normal, and, with a day's trace, its
//     diurnal shift by least squares (diurnalGap);
//   - the prefix tree: the first turns' full-block chains form a trie; a
//     node is shared when at least MinShare sessions pass through it;
//     maximal unbranched shared runs followed by at least two different
//     continuations are the tree's nodes, level by level (levels past
//     Levels dropped), each level's fanout (the children seen: a lower
//     bound when rare ones go unseen) and length the mean per parent,
//     its Zipf exponent by maximum likelihood over the children's session
//     counts ranked per parent.
//
// Censoring at the trace's ends is ignored.
func Fit(src importer.Source, opt FitOptions) (*Fitted, error) {
	opt.defaults()
	switch opt.GapLaw {
	case "", "best", "exponential", "lognormal":
	default:
		return nil, fmt.Errorf("reuse-time law %q: want exponential, lognormal or best", opt.GapLaw)
	}
	switch opt.LengthLaw {
	case "", "best", "lognormal", "mixture":
	default:
		return nil, fmt.Errorf("length law %q: want lognormal, mixture or best", opt.LengthLaw)
	}
	f := &Fitted{}
	catIdx := map[string]int{}
	var cats []*catAcc
	convs := map[int]*fitConv{}
	tr := &trie{ids: map[[2]int64]int32{}}
	var firsts []firstTurn
	var starts []float64
	var t0, tEnd float64
	B := int64(src.BlockTokens())
	if opt.TreeDepth <= 0 {
		opt.TreeDepth = max(64, int(4096/max(B, 1)))
	}
	for {
		r, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if f.Requests == 0 {
			t0 = r.Time
		}
		tEnd = r.Time
		f.Requests++
		c, ok := convs[r.Conv]
		if !ok || r.Conv < 0 {
			name := r.Category
			if name == "" {
				name = "text"
			}
			ci, ok := catIdx[name]
			if !ok {
				ci = len(cats)
				catIdx[name] = ci
				cats = append(cats, &catAcc{name: name, turns: make([]int64, opt.NextTurns+1), minGap: math.Inf(1)})
			}
			a := cats[ci]
			a.sessions++
			a.turns[0]++
			a.output.add(r.Output)
			full := min(int(r.Input/B), len(r.Hashes), opt.TreeDepth)
			firsts = append(firsts, firstTurn{cat: int32(ci), node: tr.insert(r.Hashes[:full]), input: r.Input})
			starts = append(starts, r.Time)
			if r.Conv >= 0 {
				convs[r.Conv] = &fitConv{t: r.Time, input: r.Input, output: r.Output, turn: 1, cat: int32(ci)}
			}
			continue
		}
		a := cats[c.cat]
		a.turns[min(int(c.turn), opt.NextTurns)]++
		a.inc.add(r.Input - c.input - c.output)
		a.output.add(r.Output)
		g := r.Time - c.t
		a.gaps = append(a.gaps, g)
		a.gapAt = append(a.gapAt, c.t)
		a.minGap = math.Min(a.minGap, g)
		a.sumGp += g
		c.t, c.input, c.output = r.Time, r.Input, r.Output
		c.turn++
	}
	f.Sessions = int64(len(firsts))
	f.SpanS = tEnd - t0
	if f.Sessions < 2 || !(starts[len(starts)-1] > starts[0]) {
		return nil, errors.New("prefix model fit: need ≥ 2 sessions starting at different times")
	}
	m := &f.Model
	m.SessionsPerS = float64(f.Sessions-1) / (starts[len(starts)-1] - starts[0])
	f.DiurnalFitted = f.SpanS >= Day
	if f.DiurnalFitted {
		var c complex128
		for _, t := range starts {
			c += cmplx.Exp(complex(0, 2*math.Pi*t/Day))
		}
		c /= complex(float64(len(starts)), 0)
		m.Diurnal.Amplitude = math.Min(2*cmplx.Abs(c), 0.99)
		m.Diurnal.PeakHour = math.Mod(cmplx.Phase(c)/(2*math.Pi)*24+24, 24)
	}
	f.MinShare = opt.MinShare
	if f.MinShare <= 0 {
		f.MinShare = max(2, int((f.Sessions+999)/1000))
	}
	levels, prefix := fitTree(tr, f.MinShare, opt.Levels)
	// The tree's nodes in the generated trace's 512-token blocks (a
	// Bailian trace has 16-token blocks): the nearest whole number, ≥ 1.
	for i := range levels {
		levels[i].Blocks = max(1, int(math.Round(float64(levels[i].Blocks)*float64(B)/BlockTokens)))
	}
	m.Tree.Levels = levels
	for _, ft := range firsts {
		a := cats[ft.cat]
		blocks := int64(0)
		if ft.node >= 0 {
			blocks = prefix[ft.node]
		}
		if blocks > 0 {
			a.prefixed++
			f.PrefixSessions++
		}
		a.first.add(ft.input - blocks*B)
	}
	for _, a := range cats {
		c := Category{Name: a.name, Weight: float64(a.sessions) / float64(f.Sessions),
			PrefixProb: float64(a.prefixed) / float64(a.sessions),
			First:      a.first.law(1, opt.LengthLaw), Increment: a.inc.law(1, opt.LengthLaw), Output: a.output.law(0, opt.LengthLaw)}
		if len(levels) == 0 {
			c.PrefixProb = 0
		}
		for k := 0; k < opt.NextTurns; k++ {
			var p float64
			switch {
			case k < opt.NextTurns-1 && a.turns[k] > 0:
				p = float64(a.turns[k+1]) / float64(a.turns[k])
			case k == opt.NextTurns-1 && a.turns[k]+a.turns[k+1] > 0:
				// Turns ≥ NextTurns: n_{≥K+1}/n_{≥K}, the pooled slot
				// holding every request past turn K.
				p = float64(a.turns[k+1]) / float64(a.turns[k]+a.turns[k+1])
			}
			c.NextTurn = append(c.NextTurn, math.Min(p, 0.999))
			if a.turns[k] == 0 {
				break
			}
		}
		var ll [2]float64
		if n := len(a.gaps); n > 0 {
			c.Gap, ll = fitGap(a.gaps, a.minGap, a.sumGp, opt.GapLaw)
			if f.DiurnalFitted {
				c.Gap = diurnalGap(c.Gap, a.gaps, a.gapAt, m.Diurnal)
			}
		}
		f.GapLogLik = append(f.GapLogLik, ll)
		m.Categories = append(m.Categories, c)
		f.CategorySessions = append(f.CategorySessions, a.sessions)
		f.CategoryFollowUps = append(f.CategoryFollowUps, int64(len(a.gaps)))
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("prefix model fit: %w", err)
	}
	return f, nil
}

// fitTree finds the shared prefixes of the trie: it returns the fitted
// levels and, per trie node, the length in blocks of the shared prefix a
// first turn ending there starts with (the deepest tree node on its path).
func fitTree(t *trie, minShare, maxLevels int) ([]Level, []int64) {
	n := len(t.count)
	kids := make([][]int32, n+1) // shared children; index n is the root
	for c := 0; c < n; c++ {
		if int(t.count[c]) >= minShare {
			p := t.par[c]
			if p < 0 {
				p = int32(n)
			}
			kids[p] = append(kids[p], int32(c))
		}
	}
	// A prefix is followed by different continuations: a run whose last
	// node has fewer than two children in the trie is one session's
	// chain seen twice (a follow-up the importer could not link), not a
	// shared prompt.
	children := make([]int32, n)
	for c := 0; c < n; c++ {
		if p := t.par[c]; p >= 0 {
			children[p]++
		}
	}
	prefix := make([]int64, n)
	type seg struct {
		start, end int32
		blocks     int64
	}
	// runOf follows an unbranched shared run from c: it ends where the
	// node has other than one shared child or where sessions leave it.
	runOf := func(c int32) seg {
		s := seg{start: c, end: c, blocks: 1}
		for len(kids[s.end]) == 1 && t.count[kids[s.end][0]] == t.count[s.end] {
			s.end = kids[s.end][0]
			s.blocks++
		}
		return s
	}
	var levels []Level
	parents := [][]seg{{{end: int32(n)}}} // the root as the one parent of level 1
	reached := int64(0)
	for _, c := range kids[n] {
		reached += int64(t.count[c])
	}
	depthOf := map[int32]int64{int32(n): 0}
	segEnd := map[int32]int64{}
	var totalAbove int64 = reached
	for lv := 0; lv < maxLevels; lv++ {
		var next []seg
		var counts [][]float64
		var fan, entered int64
		var blocks int64
		for _, group := range parents {
			for _, p := range group {
				var cs []float64
				for _, c := range kids[p.end] {
					s := runOf(c)
					if children[s.end] < 2 {
						continue
					}
					depthOf[s.end] = depthOf[p.end] + s.blocks
					next = append(next, s)
					cs = append(cs, float64(t.count[c]))
					entered += int64(t.count[c])
					blocks += s.blocks
				}
				if len(cs) > 0 {
					counts = append(counts, cs)
					fan += int64(len(cs))
				}
			}
		}
		if len(next) == 0 {
			break
		}
		l := Level{Fanout: int(math.Round(float64(fan) / float64(len(counts)))),
			Blocks: int(math.Round(float64(blocks) / float64(len(next)))),
			Zipf:   ZipfMLE(counts)}
		if lv > 0 {
			l.Prob = float64(entered) / float64(totalAbove)
		}
		l.Fanout = max(l.Fanout, 1)
		l.Blocks = max(l.Blocks, 1)
		levels = append(levels, l)
		totalAbove = entered
		for _, s := range next {
			segEnd[s.end] = depthOf[s.end]
		}
		parents = [][]seg{next}
	}
	// A first turn ending at node c starts with the deepest whole tree
	// node on its path (a trie node's parent has a smaller index).
	for c := 0; c < n; c++ {
		if d, ok := segEnd[int32(c)]; ok {
			prefix[c] = d
		} else if t.par[c] >= 0 {
			prefix[c] = prefix[t.par[c]]
		}
	}
	return levels, prefix
}

// ZipfMLE is the maximum-likelihood Zipf exponent s ∈ [0, 10] of groups of
// counts: in each group the counts, sorted decreasing, are taken as ranks
// 1, 2, … with P(rank r) = r^−s/Σ_j j^−s. Groups of one count carry no
// information; with none left it returns 0.
func ZipfMLE(groups [][]float64) float64 {
	type g struct {
		logSum, n float64
		k         int
	}
	var gs []g
	for _, cs := range groups {
		if len(cs) < 2 {
			continue
		}
		s := append([]float64(nil), cs...)
		sort.Sort(sort.Reverse(sort.Float64Slice(s)))
		var x g
		x.k = len(s)
		for r, c := range s {
			x.logSum += c * math.Log(float64(r+1))
			x.n += c
		}
		gs = append(gs, x)
	}
	if len(gs) == 0 {
		return 0
	}
	ll := func(s float64) float64 {
		var v float64
		for _, x := range gs {
			var h float64
			for r := 1; r <= x.k; r++ {
				h += math.Pow(float64(r), -s)
			}
			v += -s*x.logSum - x.n*math.Log(h)
		}
		return v
	}
	// The log-likelihood is concave in s (its second derivative is −n
	// times a variance of log r): golden-section search.
	lo, hi := 0.0, 10.0
	phi := (math.Sqrt(5) - 1) / 2
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := ll(a), ll(b)
	for i := 0; i < 100; i++ {
		if fa < fb {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = ll(b)
		} else {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = ll(a)
		}
	}
	return (lo + hi) / 2
}

// fitGap fits the reuse times gs (least lo, sum sum, seconds) by maximum
// likelihood: a shifted exponential (offset the least gap, mean the mean
// excess) and a log-normal (mean and standard deviation of the logs, gaps
// below 1 ms taken as 1 ms). It returns the law asked for (best: the one of
// higher likelihood) and both mean log-likelihoods.
func fitGap(gs []float64, lo, sum float64, law string) (Gap, [2]float64) {
	n := float64(len(gs))
	e := Gap{Law: "exponential", OffsetS: math.Max(lo, 0)}
	e.MeanS = sum/n - e.OffsetS
	var ls, lss float64
	for _, g := range gs {
		l := math.Log(math.Max(g, 1e-3))
		ls += l
		lss += l * l
	}
	mu := ls / n
	sd := math.Sqrt(math.Max(0, lss/n-mu*mu))
	ln := Gap{Law: "lognormal", Mu: mu, Sigma: sd}
	var ll [2]float64
	if e.MeanS > 0 {
		ll[0] = -math.Log(e.MeanS) - 1
	} else {
		ll[0] = math.Inf(1) // all gaps equal: a point mass
	}
	if sd > 0 {
		ll[1] = -mu - math.Log(sd) - 0.5*math.Log(2*math.Pi) - 0.5
	} else {
		ll[1] = math.Inf(1)
	}
	switch {
	case law == "lognormal", (law == "" || law == "best") && ll[1] > ll[0]:
		return ln, ll
	}
	return e, ll
}

// diurnalGap refits d to reuse times gs observed after turns at times at
// when they shift with the day: E[g − offset | φ] = m·(1 + G·φ), so the
// least-squares line of g − offset on φ has intercept m and slope m·G. The
// exponential's mean becomes the intercept (the mean at φ = 0; the plain
// mean is biased by the busier hours' weight), G = slope/intercept; the
// log-normal's μ is refitted to the logs of the gaps divided by (1 + G·φ).
func diurnalGap(d Gap, gs, at []float64, di Diurnal) Gap {
	n := float64(len(gs))
	var sx, sy, sxx, sxy float64
	for i, g := range gs {
		x, y := di.Phase(at[i]), g-d.OffsetS
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	den := n*sxx - sx*sx
	if n < 3 || !(den > 0) {
		return d
	}
	b := (n*sxy - sx*sy) / den
	a := (sy - b*sx) / n
	if !(a > 0) {
		return d
	}
	d.GapShift = math.Max(-0.99, math.Min(0.99, b/a))
	if d.Law == "lognormal" {
		var ls, lss float64
		for i, g := range gs {
			l := math.Log(math.Max(g-d.OffsetS, 1e-3) / (1 + d.GapShift*di.Phase(at[i])))
			ls += l
			lss += l * l
		}
		d.Mu = ls / n
		d.Sigma = math.Sqrt(math.Max(0, lss/n-d.Mu*d.Mu))
		return d
	}
	d.MeanS = a
	return d
}

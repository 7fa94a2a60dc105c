package prefixgen

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"sort"
)

// Request is one generated request.
type Request struct {
	// TimeS is the arrival time, seconds from the trace's start.
	TimeS float64
	// Input and Output are the prompt (history included) and response
	// lengths, tokens.
	Input, Output int64
	// Hashes is the prompt as ⌈Input/BlockTokens⌉ block ids; it is valid
	// until the next call of Next.
	Hashes []int64
	// Category indexes Model.Categories; Session is the session's 0-based
	// id in order of arrival and Turn its 1-based turn number.
	Category int
	Session  int64
	Turn     int
}

// Stats counts what a Generator has done.
type Stats struct {
	// Requests and Sessions count the requests emitted and the sessions
	// started.
	Requests, Sessions int64
	// Live is the number of sessions waiting for their next turn (the
	// session table), PeakLive its largest value so far.
	Live, PeakLive int
	// PeakChainBlocks is the longest chain held by a live session, blocks.
	PeakChainBlocks int
}

// Generator draws requests from a Model in arrival order. Its memory is
// the session table: one entry per live session (a session that will
// send another turn), holding its context as a chain of full blocks; a
// session that ends is dropped at once.
type Generator struct {
	m       Model
	r       *rand.Rand
	catCum  []float64   // cumulative category weights
	zipfCum [][]float64 // per level, cumulative child probabilities
	levOff  []int64     // per level, first block id
	nextID  int64       // next fresh block id
	arrival float64     // time of the next session arrival, s
	live    sessionHeap
	seq     uint64
	buf     []int64
	stats   Stats
}

// session is one live session of the table.
type session struct {
	at     float64 // time of its next turn, s
	seq    uint64  // tie-break: scheduling order
	id     int64
	cat    int
	turn   int     // turn number of the next request
	input  int64   // the next request's input, tokens
	output int64   // the next request's output, tokens
	chain  []int64 // full blocks of the previous request's input
}

type sessionHeap []*session

func (h sessionHeap) Len() int { return len(h) }
func (h sessionHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h sessionHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sessionHeap) Push(x any)   { *h = append(*h, x.(*session)) }
func (h *sessionHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return s
}

// NewGenerator returns a generator of m seeded with seed; m must be valid.
func NewGenerator(m Model, seed uint64) (*Generator, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	g := &Generator{m: m, r: rand.New(rand.NewPCG(seed, 0x70726566697867))}
	var s float64
	for _, c := range m.Categories {
		s += c.Weight
		g.catCum = append(g.catCum, s)
	}
	nodes, off := int64(1), int64(0)
	for _, l := range m.Tree.Levels {
		g.zipfCum = append(g.zipfCum, zipfCum(l.Fanout, l.Zipf))
		g.levOff = append(g.levOff, off)
		nodes *= int64(l.Fanout)
		off += nodes * int64(l.Blocks)
	}
	g.nextID = off
	g.arrival = g.nextArrival(0)
	return g, nil
}

// zipfCum returns the cumulative probabilities of ranks 1..n under Zipf
// exponent s.
func zipfCum(n int, s float64) []float64 {
	c := make([]float64, n)
	var t float64
	for r := 1; r <= n; r++ {
		t += math.Pow(float64(r), -s)
		c[r-1] = t
	}
	for i := range c {
		c[i] /= t
	}
	return c
}

// pick returns the index i with cum[i-1] ≤ u·cum[last] < cum[i].
func pick(cum []float64, u float64) int {
	x := u * cum[len(cum)-1]
	i := sort.SearchFloat64s(cum, x)
	if i < len(cum) && cum[i] == x {
		i++
	}
	return min(i, len(cum)-1)
}

// nextArrival draws the first session arrival after t by thinning the
// diurnal Poisson process.
func (g *Generator) nextArrival(t float64) float64 {
	a := g.m.Diurnal.Amplitude
	top := g.m.SessionsPerS * (1 + a)
	for {
		t += g.r.ExpFloat64() / top
		if a == 0 || math.IsInf(t, 1) || g.r.Float64()*(1+a) < 1+a*g.m.Diurnal.Phase(t) {
			return t
		}
	}
}

// Stats returns the counts so far.
func (g *Generator) Stats() Stats { return g.stats }

// NextTime returns the arrival time (s) of the request Next returns next.
func (g *Generator) NextTime() float64 {
	if len(g.live) > 0 && g.live[0].at <= g.arrival {
		return g.live[0].at
	}
	return g.arrival
}

// Next returns the next request in arrival order.
func (g *Generator) Next() Request {
	var s *session
	if len(g.live) > 0 && g.live[0].at <= g.arrival {
		s = heap.Pop(&g.live).(*session)
	} else {
		s = g.start(g.arrival)
		g.arrival = g.nextArrival(g.arrival)
	}
	req := g.emit(s)
	g.schedule(s)
	g.stats.Requests++
	g.stats.Live = len(g.live)
	g.stats.PeakLive = max(g.stats.PeakLive, len(g.live))
	return req
}

// start begins a session at time t: its category, its prefix from the
// tree and its first turn's lengths.
func (g *Generator) start(t float64) *session {
	ci := pick(g.catCum, g.r.Float64())
	c := &g.m.Categories[ci]
	s := &session{at: t, id: g.stats.Sessions, cat: ci, turn: 1}
	g.stats.Sessions++
	if c.PrefixProb > 0 && g.r.Float64() < c.PrefixProb {
		node := int64(0)
		for i, l := range g.m.Tree.Levels {
			if i > 0 && !(g.r.Float64() < l.Prob) {
				break
			}
			node = node*int64(l.Fanout) + int64(pick(g.zipfCum[i], g.r.Float64()))
			base := g.levOff[i] + node*int64(l.Blocks)
			for j := int64(0); j < int64(l.Blocks); j++ {
				s.chain = append(s.chain, base+j)
			}
		}
	}
	s.input = int64(len(s.chain))*BlockTokens + c.First.sample(g.r)
	s.output = c.Output.sample(g.r)
	return s
}

// emit writes s's pending request: its kept chain, then fresh blocks up to
// ⌈input/B⌉; the last, partial block is fresh every time (its content
// changes as the context grows), the full ones are kept.
func (g *Generator) emit(s *session) Request {
	n := int((s.input + BlockTokens - 1) / BlockTokens)
	for len(s.chain) < n {
		s.chain = append(s.chain, g.nextID)
		g.nextID++
	}
	g.buf = append(g.buf[:0], s.chain...)
	s.chain = s.chain[:s.input/BlockTokens]
	g.stats.PeakChainBlocks = max(g.stats.PeakChainBlocks, len(s.chain))
	return Request{TimeS: s.at, Input: s.input, Output: s.output, Hashes: g.buf, Category: s.cat, Session: s.id, Turn: s.turn}
}

// schedule decides whether s sends another turn and, if so, when and with
// what lengths, and puts it back in the table.
func (g *Generator) schedule(s *session) {
	c := &g.m.Categories[s.cat]
	if !(g.r.Float64() < c.nextTurn(s.turn)) {
		return
	}
	next := s.input + s.output + c.Increment.sample(g.r)
	if c.MaxContextTokens > 0 && next > c.MaxContextTokens || next > MaxInputTokens {
		return
	}
	s.at += c.Gap.sample(g.r, g.m.Diurnal.Phase(s.at))
	s.turn++
	s.input, s.output = next, c.Output.sample(g.r)
	g.seq++
	s.seq = g.seq
	heap.Push(&g.live, s)
}

// sample draws a length in tokens.
func (d LogNormal) sample(r *rand.Rand) int64 {
	mu, sigma := d.Mu, d.Sigma
	if d.W2 > 0 && r.Float64() < d.W2 {
		mu, sigma = d.Mu2, d.Sigma2
	}
	v := math.Min(math.Round(math.Exp(mu+sigma*r.NormFloat64())), float64(MaxTokens))
	n := max(int64(v), d.Min)
	if d.Max > 0 {
		n = min(n, d.Max)
	}
	return n
}

// sample draws a reuse time, seconds, at diurnal phase ph.
func (d Gap) sample(r *rand.Rand, ph float64) float64 {
	scale := 1 + d.GapShift*ph
	if d.Law == "lognormal" {
		return d.OffsetS + math.Exp(d.Mu+d.Sigma*r.NormFloat64())*scale
	}
	return d.OffsetS + r.ExpFloat64()*d.MeanS*scale
}

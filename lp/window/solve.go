package window

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/models/instance"
)

// Figures are one window's results, TELs in tokens.
type Figures struct {
	// Index is the window's position, Start its first step, Turns its
	// number of steps.
	Index int `json:"index"`
	Start int `json:"start_step"`
	Turns int `json:"turns"`
	// Lower is the optimum of the window's relaxation (every pair ending
	// in the window, the cache at its start free), tokens of TEL over the
	// window's turns; with an overlap (SolveLowerOverlap), of its share
	// of the TEL of its turns and of those it reaches back over.
	Lower float64 `json:"lower_bound_tokens"`
	// Restricted is the optimum of its restriction (pairs inside the
	// window only), tokens; SeamGain the TEL the re-solve of the seam
	// after the window removed (≤ 0, tokens; 0 for the last window).
	// Upper = Restricted + SeamGain is this window's share of the stitched
	// schedule's TEL.
	Restricted float64 `json:"restricted_tokens"`
	SeamGain   float64 `json:"seam_gain_tokens"`
	Upper      float64 `json:"upper_bound_tokens"`
	// BaseTEL is the window's TEL with nothing cached, tokens.
	BaseTEL float64 `json:"base_tel_tokens"`
	// Seconds is the time the window's solves took.
	Seconds float64 `json:"seconds"`
}

// local is a window as an lp.Instance: the turn before the window (when
// there is one) at index 0 and the window's turns after it, conversations
// renumbered densely, histories from the whole trace; a previous turn
// before the window, other than the one at index 0, is −1 (gp holds the
// global one).
type local struct {
	in *lp.Instance
	o  int   // index in in of the window's first turn (0 or 1)
	gp []int // global previous turn of each window turn
	a  int   // window's first step
}

func newLocal(w *Window, p instance.Params) (*local, error) { return newLocalSpan(w.span(), p) }

// newLocalSpan is newLocal on a span of steps read in place: a window, a
// window widened back (Window.extendedSpan) or two windows joined
// (joinSpan), none copied into one.
func newLocalSpan(w span, p instance.Params) (*local, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	if math.Abs(p.Xi) > 1<<50 {
		return nil, fmt.Errorf("window: threshold ξ = %v tokens must be below 2^50 in magnitude", p.Xi)
	}
	o := 0
	if w.hasBefore {
		o = 1
	}
	n := w.n + o
	b := newBuilder(p, n)
	if w.hasBefore {
		b.add(0, w.before.t, w.before.h, -1)
	}
	gp := make([]int, w.n)
	for j := range w.n {
		r := w.at(j)
		gp[j] = r.prev
		pl := -1
		if g := r.prev; g >= 0 && g >= w.start-o {
			pl = g - w.start + o
			if l, ok := b.last[r.t.Conv]; !ok || l != pl {
				return nil, fmt.Errorf("window %d: turn %d's previous turn %d is not its conversation's last", w.index, w.start+j, g)
			}
		}
		b.add(j+o, r.t, r.h, pl)
	}
	in := b.instance()
	return &local{in: in, o: o, gp: gp, a: w.start}, nil
}

// base is the TEL of the window's turns with nothing cached, tokens.
func (l *local) base() float64 {
	s := 0.0
	for k := l.o; k < l.in.K(); k++ {
		s += l.in.Excess(k, 0)
	}
	return s
}

// capAt is the capacity of window step j, blocks: C/B, less the forced
// hold of the turn of that step under forced caching.
func (l *local) capAt(j int) int64 {
	if l.in.Forced {
		return l.in.Blocks() - l.in.MaxKeep(j+l.o)
	}
	return l.in.Blocks()
}

// capz is the cap on the blocks carried into window turn j: min(⌊H/B⌋,
// C/B), the previous turn's MaxKeep.
func (l *local) capz(j int) int64 {
	return min(l.in.History[j+l.o]/l.in.BlockSize, l.in.Blocks())
}

// forcedFixed reports whether window turn j's pair is forced caching's
// fixed pair (n−1, n).
func (l *local) forcedFixed(j int) bool { return l.in.Forced && l.gp[j] == l.a+j-1 }

// pair is a variable pair of a line network: the blocks carried into
// window turn j over the network's nodes from .. to (to − from steps).
type pair struct{ j, from, to int }

// line solves the line network of steps s0 .. s0+len(caps)−1 of the
// window, step s0+i of capacity caps[i] blocks, with the variable pairs
// given (nodes relative to s0), the savings of the pair into turn j
// weighted by wt[j] (nil: 1): it returns the blocks carried by each pair
// and the weighted savings of the flow, tokens.
func (l *local) line(ctx context.Context, caps []int64, pairs []pair, wt []int64) ([]int64, float64, error) {
	in := l.in
	scale, hs, _, _ := lp.PieceCosts(in)
	var maxWt int64 = 1
	for _, w := range wt {
		maxWt = max(maxWt, w)
	}
	if float64(len(caps)+1)*float64(in.BlockSize+1)*float64(scale)*float64(maxWt) >= math.Ldexp(1, 61) {
		return nil, 0, fmt.Errorf("window: weighted piece costs overflow int64 (%d steps, scale 2^%d, weight %d): use fewer overlap weights or a whole ξ", len(caps), bitsOf(scale), maxWt)
	}
	weight := func(sg lp.Segment, j int) int64 {
		w := sg.Tokens * scale
		if sg.PlusH {
			w += hs
		}
		if wt != nil {
			w *= wt[j]
		}
		return w
	}
	S := len(caps)
	g := mcf.NewNetwork(S + 1)
	var prev int64
	for i, c := range caps {
		g.AddSupply(i, c-prev)
		prev = c
		g.AddArc(i, i+1, c, 0)
	}
	g.AddSupply(S, -prev)
	first := make([]int, len(pairs))
	count := make([]int, len(pairs))
	var base []int64
	for i, pr := range pairs {
		first[i] = g.Arcs()
		for _, sg := range in.SavingsCapped(pr.j+l.o, l.capz(pr.j)) {
			g.AddArc(pr.from, pr.to, sg.Blocks, -weight(sg, pr.j))
			base = append(base, weight(sg, pr.j))
			count[i]++
		}
	}
	flow, _, err := g.SolveWindows(ctx, mcf.DefaultPlan())
	if err != nil {
		if errors.Is(err, mcf.ErrInfeasible) {
			return nil, 0, fmt.Errorf("window: the step network is infeasible, which the construction rules out: %w", err)
		}
		return nil, 0, fmt.Errorf("window: %w", err)
	}
	var cost int64
	for i, f := range flow[S:] {
		cost -= base[i] * f
	}
	z := make([]int64, len(pairs))
	for i := range pairs {
		for e := first[i]; e < first[i]+count[i]; e++ {
			z[i] += flow[e]
		}
	}
	return z, float64(-cost) / float64(scale), nil
}

// bitsOf returns log2 of the power of two s.
func bitsOf(s int64) int {
	n := 0
	for ; s > 1; s >>= 1 {
		n++
	}
	return n
}

// solve solves the window's relaxation (lower) or restriction and returns
// its optimal TEL over the window's turns, tokens, and the schedule of the
// window's turns (x_n, tokens), checked for the restriction. With wt (the
// relaxation only), turn j's TEL counts wt[j]/m times.
func (l *local) solve(ctx context.Context, lower bool, wt []int64, m int64) (float64, []int64, error) {
	in, o := l.in, l.o
	L := in.K() - o
	caps := make([]int64, L)
	for j := range caps {
		caps[j] = l.capAt(j)
	}
	z := make([]int64, L) // blocks carried without using the window's capacity, then all
	var pairs []pair
	for j := 0; j < L; j++ {
		gp := l.gp[j]
		switch {
		case gp < 0:
		case l.forcedFixed(j):
			z[j] = l.capz(j) // forced pair (n−1, n): fixed, spans no step
		case gp >= l.a: // inside the window
			from := gp - l.a
			if in.Forced {
				from++
			}
			pairs = append(pairs, pair{j, from, j})
		case !lower: // crosses the window's start: carries nothing
		case j == 0: // relaxation, spans no step of the window: at its cap, free
			z[j] = l.capz(j)
		default: // relaxation: starts at the window's first node
			pairs = append(pairs, pair{j, 0, j})
		}
	}
	zp, saved, err := l.line(ctx, caps, pairs, wt)
	if err != nil {
		return 0, nil, err
	}
	for i, pr := range pairs {
		z[pr.j] = zp[i]
	}
	x := make([]int64, L)
	tel := 0.0 // weighted by wt, in units of 1/m
	for j := range x {
		x[j] = z[j] * in.BlockSize
		tel += float64(weightOf(wt, j)) * in.Excess(j+o, x[j])
	}
	if err := l.consistent(tel, saved, x, pairs, wt); err != nil {
		return 0, nil, err
	}
	tel /= float64(m)
	if !lower {
		if err := l.check(x, tel); err != nil {
			return 0, nil, err
		}
	}
	return tel, x, nil
}

// weightOf is wt[j], 1 when wt is nil.
func weightOf(wt []int64, j int) int64 {
	if wt == nil {
		return 1
	}
	return wt[j]
}

// consistent checks, when the piece costs are exact, that the base TEL
// less the flow's savings (and the savings of the amounts fixed outside
// the flow) is the TEL of schedule x, recomputed turn by turn.
func (l *local) consistent(tel, saved float64, x []int64, pairs []pair, wt []int64) error {
	if _, _, _, exact := lp.PieceCosts(l.in); !exact {
		return nil
	}
	inFlow := make(map[int]bool, len(pairs))
	for _, pr := range pairs {
		inFlow[pr.j] = true
	}
	base := 0.0
	for j := range x {
		w := float64(weightOf(wt, j))
		base += w * l.in.Excess(j+l.o, 0)
		if !inFlow[j] {
			saved += w * (l.in.Excess(j+l.o, 0) - l.in.Excess(j+l.o, x[j]))
		}
	}
	if d := math.Abs(base - saved - tel); d > 1e-6*math.Max(1, tel) {
		return fmt.Errorf("window: flow cost and schedule TEL differ by %g tokens (a solver bug)", d)
	}
	return nil
}

// check checks schedule x of the window's turns as every schedule is
// (lp.Instance.CheckSchedule; the turn before the window finds nothing
// here, and a turn whose previous turn is further back must find
// nothing), and that its TEL over the window's turns is tel.
func (l *local) check(x []int64, tel float64) error {
	full := make([]int64, l.in.K())
	copy(full[l.o:], x)
	if err := l.in.CheckSchedule(full); err != nil {
		return fmt.Errorf("window: the stitched schedule is not admissible (a bug): %w", err)
	}
	if t := l.in.TEL(full) - l.in.Excess(0, 0)*float64(l.o); math.Abs(t-tel) > 1e-6*math.Max(1, tel) {
		return fmt.Errorf("window: schedule TEL %g ≠ %g tokens", t, tel)
	}
	return nil
}

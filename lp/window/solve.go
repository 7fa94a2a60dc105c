package window

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/mcf"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/trace"
)

// Figures are one window's results, TELs in tokens.
type Figures struct {
	// Index is the window's position, Start its first step, Turns its
	// number of steps.
	Index int `json:"index"`
	Start int `json:"start_step"`
	Turns int `json:"turns"`
	// Lower is the optimum of the window's relaxation (every pair ending
	// in the window, the cache at its start free), Upper the optimum of
	// its restriction (pairs inside the window only), both tokens of TEL
	// over the window's turns; BaseTEL the window's TEL with nothing
	// cached.
	Lower   float64 `json:"lower_bound_tokens"`
	Upper   float64 `json:"upper_bound_tokens"`
	BaseTEL float64 `json:"base_tel_tokens"`
	// Exact says the piece costs were exact (else frac(ξ) was rounded;
	// Detail says by how much).
	Exact bool `json:"exact_costs"`
	// Seconds is the time the window's two solves took.
	Seconds float64 `json:"seconds"`
	Detail  string  `json:"detail"`
}

// Solved is a window's figures and the upper bound's schedule: x_n,
// tokens, cached for each of the window's turns.
type Solved struct {
	Figures
	Schedule []int64
}

// local is a window as an lp.Instance: the turn before the window (when
// there is one) at index 0 and the window's turns after it, conversations
// renumbered densely, histories and previous turns from the whole trace
// (a previous turn before the window, other than the first, is −1).
type local struct {
	in *lp.Instance
	o  int   // index in in of the window's first turn (0 or 1)
	gp []int // global previous turn of each window turn
	a  int   // window's first step
}

func newLocal(w *Window, p instance.Params) (*local, error) {
	o := 0
	if w.HasBefore {
		o = 1
	}
	n := w.Len() + o
	in := &lp.Instance{Params: p, Turns: make([]trace.Turn, n), History: make([]int64, n),
		Next: make([]int, n), Prev: make([]int, n)}
	ids := map[int]int{}
	lastLocal := map[int]int{}
	put := func(k int, t trace.Turn, h int64, prevLocal int) {
		id, ok := ids[t.Conv]
		if !ok {
			id = len(ids)
			ids[t.Conv] = id
			in.First = append(in.First, k)
		}
		t.Conv, t.Index = id, k
		in.Turns[k], in.History[k], in.Prev[k], in.Next[k] = t, h, prevLocal, -1
		if prevLocal >= 0 {
			in.Next[prevLocal] = k
		}
	}
	if w.HasBefore {
		put(0, w.Before, w.BeforeHistory, -1)
		lastLocal[w.Before.Conv] = 0
	}
	for j, t := range w.Turns {
		k := j + o
		pl := -1
		if g := w.Prev[j]; g >= w.Start-o && g >= 0 {
			pl = g - w.Start + o
			if l, ok := lastLocal[t.Conv]; !ok || l != pl {
				return nil, fmt.Errorf("window %d: turn %d's previous turn %d is not its conversation's last", w.Index, w.Start+j, g)
			}
		}
		put(k, t, w.History[j], pl)
		lastLocal[t.Conv] = k
	}
	in.Conversations = len(ids)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("window: %w", err)
	}
	if math.Abs(p.Xi) > 1<<50 {
		return nil, fmt.Errorf("window: threshold ξ = %v tokens must be below 2^50 in magnitude", p.Xi)
	}
	return &local{in: in, o: o, gp: w.Prev, a: w.Start}, nil
}

// Solve computes window w's lower and upper bounds (see the package doc)
// under p, and the upper bound's schedule, checked.
func Solve(ctx context.Context, w *Window, p instance.Params) (*Solved, error) {
	l, err := newLocal(w, p)
	if err != nil {
		return nil, err
	}
	s := &Solved{Figures: Figures{Index: w.Index, Start: w.Start, Turns: w.Len()}}
	for k := l.o; k < l.in.K(); k++ {
		s.BaseTEL += l.in.Excess(k, 0)
	}
	lo, _, dl, err := l.solve(ctx, true)
	if err != nil {
		return nil, err
	}
	up, x, du, err := l.solve(ctx, false)
	if err != nil {
		return nil, err
	}
	_, _, _, exact := lp.PieceCosts(l.in)
	s.Lower, s.Upper, s.Exact, s.Schedule = lo, up, exact, x
	s.Detail = "lower: " + dl + "; upper: " + du
	if lo > up+1e-9*math.Max(1, up) {
		return nil, fmt.Errorf("window %d: lower bound %g above upper bound %g tokens: a solver bug", w.Index, lo, up)
	}
	return s, nil
}

// solve solves the window's relaxation (lower) or restriction and returns
// its optimal TEL over the window's turns, tokens, the schedule of the
// window's turns (tokens), checked for the restriction, and a detail line.
func (l *local) solve(ctx context.Context, lower bool) (float64, []int64, string, error) {
	in, o := l.in, l.o
	L := in.K() - o
	phi := in.Blocks()
	scale, hs, _, exact := lp.PieceCosts(in)
	weight := func(sg lp.Segment) int64 {
		w := sg.Tokens * scale
		if sg.PlusH {
			w += hs
		}
		return w
	}
	g := mcf.NewNetwork(L + 1)
	var prev int64
	for j := 0; j < L; j++ {
		c := phi
		if in.Forced {
			c = phi - in.MaxKeep(j+o)
		}
		g.AddSupply(j, c-prev)
		prev = c
		g.AddArc(j, j+1, c, 0)
	}
	g.AddSupply(L, -prev)
	fixed := make([]int64, L) // blocks carried without using the window's capacity
	arcFirst := make([]int, L)
	arcN := make([]int, L)
	var base []int64
	for j := 0; j < L; j++ {
		gp := l.gp[j]
		if gp < 0 {
			continue
		}
		k := j + o
		capz := min(in.History[k]/in.BlockSize, phi) // = MaxKeep(previous turn)
		var from int
		switch {
		case in.Forced && gp == l.a+j-1:
			fixed[j] = capz // forced pair (n−1, n): fixed, spans no step
			continue
		case gp >= l.a: // inside the window
			from = gp - l.a
			if in.Forced {
				from++
			}
		case !lower: // crosses the window's start: carries nothing
			continue
		default: // relaxation: starts at the window's first node
			from = 0
			if j == 0 { // spans no step of the window: at its cap, free
				fixed[j] = capz
				continue
			}
		}
		arcFirst[j] = g.Arcs()
		for _, sg := range in.SavingsCapped(k, capz) {
			g.AddArc(from, j, sg.Blocks, -weight(sg))
			base = append(base, weight(sg))
			arcN[j]++
		}
	}
	flow, stats, err := g.SolveWindows(ctx, mcf.DefaultPlan())
	if err != nil {
		if errors.Is(err, mcf.ErrInfeasible) {
			return 0, nil, "", fmt.Errorf("window: the step network is infeasible, which the construction rules out: %w", err)
		}
		return 0, nil, "", fmt.Errorf("window: %w", err)
	}
	var cost int64
	for i, f := range flow[L:] {
		cost -= base[i] * f
	}
	x := make([]int64, L)
	tel, saved := 0.0, float64(-cost)/float64(scale)
	for j := 0; j < L; j++ {
		z := fixed[j]
		for e := arcFirst[j]; e < arcFirst[j]+arcN[j]; e++ {
			z += flow[e]
		}
		x[j] = z * in.BlockSize
		tel += in.Excess(j+o, x[j])
		if fixed[j] > 0 {
			saved += in.Excess(j+o, 0) - in.Excess(j+o, x[j])
		}
	}
	baseTEL := 0.0
	for k := o; k < in.K(); k++ {
		baseTEL += in.Excess(k, 0)
	}
	if exact {
		if d := math.Abs(baseTEL - saved - tel); d > 1e-6*math.Max(1, tel) {
			return 0, nil, "", fmt.Errorf("window: flow cost and schedule TEL differ by %g tokens (a solver bug)", d)
		}
	}
	if !lower {
		full := make([]int64, in.K())
		copy(full[o:], x)
		if err := in.CheckSchedule(full); err != nil {
			return 0, nil, "", fmt.Errorf("window: the stitched schedule is not admissible (a bug): %w", err)
		}
		if t := in.TEL(full) - in.Excess(0, 0)*float64(o); math.Abs(t-tel) > 1e-6*math.Max(1, tel) {
			return 0, nil, "", fmt.Errorf("window: schedule TEL %g ≠ %g tokens", t, tel)
		}
	}
	return tel, x, stats, nil
}

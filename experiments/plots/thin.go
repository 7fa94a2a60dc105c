package plots

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// thinTickLabels drops the labels of ticks whose labels would run into a
// neighbour's once drawn in area (e.g. "90k" and "100k" on a log axis of
// less than a decade), keeping the most telling ones first: on a log axis
// the powers of ten, then 2 and 5 times them, then the others; on a linear
// axis every other label first. A dropped label's tick stays, as a minor
// tick. Labels on the x axis keep half an em between them, measured as a
// substitute font would draw them (substituteWidth); on the y axis they
// may touch (they are one line high and stacked).
func thinTickLabels(p *plot.Plot, area draw.Canvas) {
	da := p.DataCanvas(area)
	xs := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	p.X.Tick.Marker = plot.ConstantTicks(thin(xs, isLog(p.X.Scale), p.X.Tick.Label.Font.Size.Points()/2,
		func(v float64) float64 { return da.X(p.X.Norm(v)).Points() },
		func(s string) float64 { return p.X.Tick.Label.Width(s).Points() * substituteWidth }))
	ys := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
	p.Y.Tick.Marker = plot.ConstantTicks(thin(ys, isLog(p.Y.Scale), 0,
		func(v float64) float64 { return da.Y(p.Y.Norm(v)).Points() },
		func(s string) float64 { return p.Y.Tick.Label.Height(s).Points() }))
}

func isLog(s plot.Normalizer) bool {
	_, ok := s.(plot.LogScale)
	return ok
}

// thin keeps the labels of ticks (at pos(v) along the axis, size(label)
// long along it, centred) that do not come within gap of a label kept
// before, in order of rank.
func thin(ticks []plot.Tick, log bool, gap float64, pos func(float64) float64, size func(string) float64) []plot.Tick {
	type cand struct {
		i, rank int
		lo, hi  float64
	}
	var cs []cand
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		c, h := pos(t.Value), size(t.Label)/2
		cs = append(cs, cand{i: i, rank: tickRank(t.Value, len(cs), log), lo: c - h, hi: c + h})
	}
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].rank < cs[b].rank })
	out := append([]plot.Tick(nil), ticks...)
	var kept []cand
	for _, c := range cs {
		clear := true
		for _, k := range kept {
			if c.lo < k.hi+gap && k.lo < c.hi+gap {
				clear = false
				break
			}
		}
		if clear {
			kept = append(kept, c)
		} else {
			out[c.i].Label = ""
		}
	}
	return out
}

// tickRank orders labels by how much they say: 0 first.
func tickRank(v float64, k int, log bool) int {
	if !log {
		return k % 2
	}
	m := v / math.Pow(10, math.Floor(math.Log10(v)))
	switch {
	case math.Abs(m-1) < 1e-9 || math.Abs(m-10) < 1e-9:
		return 0
	case math.Abs(m-2) < 1e-9 || math.Abs(m-5) < 1e-9:
		return 1
	}
	return 2
}

package recompute

import (
	"fmt"
	"math"
	"sort"
)

// CurvePoint is the mean TTFT at one recompute ratio of a measured curve.
type CurvePoint struct {
	R    float64 `json:"r"`      // recompute ratio, fraction of tokens
	TTFT float64 `json:"ttft_s"` // run-weighted mean TTFT, seconds
	// SE is the standard error of the mean across rows, seconds (0 with
	// one row).
	SE   float64 `json:"se_s"`
	Reps int     `json:"reps"` // runs averaged
}

// Curve is the measured TTFT(r) of one tier and context length.
type Curve struct {
	Tier   string       `json:"tier"`
	Tokens int          `json:"tokens"` // context length, tokens (0 = not given)
	Points []CurvePoint `json:"points"` // in increasing r
}

// Curves groups measurements by (tier, tokens), in the order each group
// first appears, and averages the rows at each ratio weighted by their runs.
func Curves(ms []Measurement) []Curve {
	type key struct {
		tier   string
		tokens int
	}
	idx := map[key]int{}
	var rows [][]Measurement
	var out []Curve
	for _, m := range ms {
		k := key{m.Tier, m.Tokens}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Curve{Tier: m.Tier, Tokens: m.Tokens})
			rows = append(rows, nil)
		}
		rows[i] = append(rows[i], m)
	}
	for i := range out {
		g := rows[i]
		sort.SliceStable(g, func(a, b int) bool { return g[a].R < g[b].R })
		for j := 0; j < len(g); {
			k := j
			for k < len(g) && g[k].R == g[j].R {
				k++
			}
			out[i].Points = append(out[i].Points, meanPoint(g[j:k]))
			j = k
		}
	}
	return out
}

// meanPoint is the run-weighted mean of rows at one ratio. The standard
// error treats each row as one observation of its mean.
func meanPoint(rows []Measurement) CurvePoint {
	var w, s float64
	for _, m := range rows {
		w += float64(m.Reps)
		s += float64(m.Reps) * m.TTFT
	}
	p := CurvePoint{R: rows[0].R, TTFT: s / w, Reps: int(w)}
	if n := len(rows); n > 1 {
		var ss float64
		for _, m := range rows {
			ss += (m.TTFT - p.TTFT) * (m.TTFT - p.TTFT)
		}
		p.SE = math.Sqrt(ss / float64(n-1) / float64(n))
	}
	return p
}

// Range returns the least and greatest measured ratio.
func (c Curve) Range() (lo, hi float64) {
	return c.Points[0].R, c.Points[len(c.Points)-1].R
}

// Objective returns f(r) interpolated linearly between the measured
// ratios; outside them it is an error. Its evaluations cost nothing, so a
// search on a curve shows where the search would probe, not new runs.
func (c Curve) Objective() Objective {
	return func(r float64) (float64, error) {
		ps := c.Points
		lo, hi := c.Range()
		if r < lo || r > hi || math.IsNaN(r) {
			return 0, fmt.Errorf("r=%.4f outside the measured range [%v, %v] of %s", r, lo, hi, c.Label())
		}
		j := sort.Search(len(ps), func(i int) bool { return ps[i].R >= r })
		if ps[j].R == r {
			return ps[j].TTFT, nil
		}
		p, q := ps[j-1], ps[j]
		t := (r - p.R) / (q.R - p.R)
		return p.TTFT + t*(q.TTFT-p.TTFT), nil
	}
}

// Label is "tier" or "tier@N" when the context length is known.
func (c Curve) Label() string {
	if c.Tokens > 0 {
		return fmt.Sprintf("%s@%d", c.Tier, c.Tokens)
	}
	return c.Tier
}

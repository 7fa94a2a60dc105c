package plots

// CCDF turns the points (x_i, F_i) of a cumulative distribution, x
// increasing and F_i = the fraction of values ≤ x_i, into its
// complementary distribution: (x_i, 1 − F_i), the fraction of values
// > x_i. Points where 1 − F_i is 0 (the maximum and beyond) are left out:
// a log axis cannot show them.
func CCDF(x, cdf []float64) (xs, tail []float64) {
	for i := range x {
		if t := 1 - cdf[i]; t > 1e-12 {
			xs, tail = append(xs, x[i]), append(tail, t)
		}
	}
	return xs, tail
}

// TailLevels are the reference levels of a tail figure: a curve crosses
// the level P90 (fraction 0.1 above) at its 90th percentile, and so on.
func TailLevels() []Level {
	return []Level{{Name: "P90", Y: 0.1}, {Name: "P95", Y: 0.05}, {Name: "P99", Y: 0.01}}
}

// TailFigure is a TTFT distribution drawn to show its tail: for each
// series (its CDF points, as CCDF takes them) the fraction of unit (e.g.
// "turns") whose TTFT exceeds x, on a log axis from 1 down to 10⁻³, with
// the P90, P95 and P99 levels marked, so that where a curve crosses a level
// is that percentile and the gaps between policies in the tail are as wide
// as those at the median.
func TailFigure(title, unit string, names []string, x, cdf [][]float64) Figure {
	f := Figure{Title: title, XLabel: "TTFT x (ms)", YLabel: "fraction of " + unit + " with TTFT > x",
		LogY: true, YMin: 1e-3, Levels: TailLevels()}
	for i, n := range names {
		xs, ys := CCDF(x[i], cdf[i])
		f.Series = append(f.Series, Series{Name: n, X: xs, Y: ys})
	}
	return f
}

package kvpipe

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"

	"github.com/tailbound/tailbound/models/recompute"
)

// Settings control a measurement.
type Settings struct {
	// Reps is the number of runs averaged per evaluated ratio (the
	// paper's calibration set size |S_cal|).
	Reps int
	// ProfileSteps is the number of token counts (k·N/steps, k = 1..steps)
	// at which the compute and load stages are timed alone to fit t_c, t_i.
	ProfileSteps int
	// Options are the search and grid options (Options.Variant is
	// ignored: see Variants).
	Options recompute.Options
	// Variants are the search variants to run on the same measured
	// objective (the grid is measured once); empty means Options.Variant.
	Variants []recompute.Variant
	// ConfirmRounds is the number of interleaved rounds in which r0, the
	// intercept-aware crossover, every r* and the grid minimum are
	// re-measured side by side (0: 2·Reps).
	ConfirmRounds int
	// Median makes f(r) the median of the runs instead of their mean
	// (the paper's f is the mean; the median resists interference spikes
	// on a shared machine).
	Median bool
	// Record, if set, receives every timed full-pipeline run.
	Record func(recompute.Measurement)
	// Progress, if set, receives a short note before each phase.
	Progress func(string)
}

// ProfileFit is the hardware profile of one tier and context length,
// fitted by least squares from the stages timed alone, per layer.
type ProfileFit struct {
	// Compute is per-layer compute seconds against recomputed tokens;
	// Load per-layer load seconds against loaded tokens.
	Compute recompute.Line `json:"compute"`
	Load    recompute.Line `json:"load"`
	// Profile has t_c, t_i (the slopes) and t_o, the larger of the two
	// intercepts o_c, o_i (floored at 0): the part of a layer's time that
	// does not scale with r. Since max(o_c + X, o_i + Y) ≤ max(X, Y) +
	// max(o_c, o_i), the roofline with this t_o bounds the layer time of
	// two branches with their own intercepts from above; r0 does not
	// depend on t_o.
	Profile recompute.Profile `json:"profile"`
	// Bandwidth is the effective read bandwidth, bytes per token per layer
	// / t_i, bytes/s; 0 when the fitted load slope is not positive (the
	// timings could not resolve a per-token read cost, so no bandwidth is
	// claimed).
	Bandwidth float64 `json:"bandwidth_bytes_per_s"`
}

// FitProfile times the compute stage alone at recomputed counts
// k·N/steps and the load stage alone at the same loaded counts, reps times
// each (interleaved), and fits a line to the median time of each count
// (per-layer seconds against tokens). The median keeps one interfered run
// on a shared machine from tilting the line.
func (p *Pipeline) FitProfile(t Tier, tokens, reps, steps int) (ProfileFit, error) {
	if reps < 1 || steps < 2 {
		return ProfileFit{}, fmt.Errorf("kvpipe: profile needs ≥ 1 repetition and ≥ 2 steps, got %d and %d", reps, steps)
	}
	L := float64(p.cfg.Layers)
	var xc, yc, xl, yl []float64
	for k := 1; k <= steps; k++ {
		n := k * tokens / steps
		cs, ls := make([]float64, reps), make([]float64, reps)
		for i := range reps {
			d, err := p.ComputeOnly(tokens, n)
			if err != nil {
				return ProfileFit{}, err
			}
			cs[i] = d.Seconds() / L
			if d, err = p.LoadOnly(t, tokens, n); err != nil {
				return ProfileFit{}, err
			}
			ls[i] = d.Seconds() / L
		}
		xc, yc = append(xc, float64(n)), append(yc, median(cs))
		xl, yl = append(xl, float64(n)), append(yl, median(ls))
	}
	var pf ProfileFit
	var err error
	if pf.Compute, err = recompute.FitLine(xc, yc); err != nil {
		return pf, fmt.Errorf("kvpipe: compute profile: %w", err)
	}
	if pf.Load, err = recompute.FitLine(xl, yl); err != nil {
		return pf, fmt.Errorf("kvpipe: load profile: %w", err)
	}
	pf.Profile = recompute.Profile{Tc: math.Max(pf.Compute.Slope, 0), Ti: math.Max(pf.Load.Slope, 0),
		To: math.Max(0, math.Max(pf.Compute.Intercept, pf.Load.Intercept))}
	if err := pf.Profile.Validate(); err != nil {
		return pf, fmt.Errorf("kvpipe: fitted profile: %w", err)
	}
	if pf.Profile.Ti > 0 {
		pf.Bandwidth = float64(p.cfg.BytesPerTokenLayer) / pf.Profile.Ti
	}
	return pf, nil
}

// Objective returns the measured TTFT at ratio r, seconds: the mean (or,
// with useMedian set, the median) of reps full-pipeline runs, recording each.
func (p *Pipeline) Objective(t Tier, tokens, reps int, useMedian bool, record func(recompute.Measurement)) recompute.Objective {
	return func(r float64) (float64, error) {
		if reps < 1 {
			return 0, fmt.Errorf("kvpipe: want ≥ 1 repetition, got %d", reps)
		}
		xs := make([]float64, reps)
		for i := range xs {
			d, err := p.Run(t, tokens, r)
			if err != nil {
				return 0, err
			}
			xs[i] = d.Seconds()
			if record != nil {
				record(recompute.Measurement{Tier: t.String(), Tokens: tokens, R: r, TTFT: xs[i], Reps: 1})
			}
		}
		if useMedian {
			return median(xs), nil
		}
		return stat.Mean(xs, nil), nil
	}
}

// median returns the median of xs (sorting xs): the mean of the two middle
// values for an even count.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Result is one measured tier and context length.
type Result struct {
	Tier   string `json:"tier"`
	Tokens int    `json:"tokens"`
	// Profile is the fitted hardware profile; Model the roofline with it
	// (its TTFT is the prediction).
	Profile ProfileFit      `json:"profile"`
	Model   recompute.Model `json:"model"`
	// Analyses has one analysis per search variant, sharing one grid.
	Analyses []recompute.Analysis `json:"analyses"`
	// R0Branch is the crossover with each stage's own intercept
	// (recompute.BranchR0 of the fitted lines), clipped to the bounds.
	R0Branch float64 `json:"r0_branch_intercepts"`
	// Confirmed are r0 ("r0"), R0Branch ("r0 intercepts"), each variant's
	// r* ("r* paper", "r* ordered") and the grid minimum ("grid best")
	// re-measured side by side (see Pipeline.Confirm).
	Confirmed []Candidate `json:"confirmed"`
}

// Measure profiles the tier at tokens tokens, takes r0 from the fitted
// profile, and runs the warm-started search and the grid on the measured
// pipeline.
func (p *Pipeline) Measure(t Tier, tokens int, s Settings) (Result, error) {
	res := Result{Tier: t.String(), Tokens: tokens}
	note := func(format string, a ...any) {
		if s.Progress != nil {
			s.Progress(fmt.Sprintf(format, a...))
		}
	}
	note("%s, %d tokens: profiling", t, tokens)
	pf, err := p.FitProfile(t, tokens, s.Reps, s.ProfileSteps)
	if err != nil {
		return res, err
	}
	res.Profile = pf
	res.Model = recompute.Model{Profile: pf.Profile, Tokens: tokens, Layers: p.cfg.Layers}
	note("%s, %d tokens: searching from r0 = %.3f", t, tokens, pf.Profile.R0())
	vs := s.Variants
	if len(vs) == 0 {
		vs = []recompute.Variant{s.Options.Variant}
	}
	f := p.Objective(t, tokens, s.Reps, s.Median, s.Record)
	if res.Analyses, err = recompute.AnalyzeAll(f, pf.Profile.R0(), s.Options, vs); err != nil {
		return res, err
	}
	rb := recompute.BranchR0(pf.Profile.Tc, pf.Profile.Ti, pf.Compute.Intercept, pf.Load.Intercept, tokens)
	if math.IsNaN(rb) {
		rb = pf.Profile.R0()
	}
	res.R0Branch = recompute.Clip(rb, s.Options.RMin, s.Options.RMax)
	names := []string{"r0", "r0 intercepts"}
	rs := []float64{res.Analyses[0].R0, res.R0Branch}
	for _, a := range res.Analyses {
		names, rs = append(names, "r* "+a.Variant.String()), append(rs, a.RStar)
	}
	if len(res.Analyses[0].Grid) > 0 {
		names, rs = append(names, "grid best"), append(rs, res.Analyses[0].GridBest.R)
	}
	rounds := s.ConfirmRounds
	if rounds == 0 {
		rounds = max(2*s.Reps, 2)
	}
	note("%s, %d tokens: confirming %d ratios side by side", t, tokens, len(rs))
	res.Confirmed, err = p.Confirm(t, tokens, names, rs, rounds)
	return res, err
}

package recompute

import (
	"fmt"
	"math"
)

// CheckRoofline checks claim 9 of the specification (§6): the roofline
// optimum r0 is as good as the measured optimum. It runs Analyze on the
// measured objective f from the unclipped roofline optimum r0Raw (e.g.
// Profile.R0() of a hardware or fitted profile) with options o, and holds
// (ok) when TTFT(r0) exceeds the best measured TTFT — the lesser of
// TTFT(r*) and the grid minimum, so that a search that missed the minimum
// does not flatter r0 — by at most maxRegret (a fraction, e.g. 0.05).
// detail is one line with r0, r*, the TTFTs in ms, the regret, the number
// of evaluations, and the unimodality and search warnings. err is set only
// when the measurement or the options fail, never because the claim fails.
func CheckRoofline(f Objective, r0Raw float64, o Options, maxRegret float64) (ok bool, detail string, err error) {
	if !(maxRegret >= 0) || math.IsInf(maxRegret, 0) {
		return false, "", fmt.Errorf("check roofline: max regret must be a finite fraction ≥ 0, got %v", maxRegret)
	}
	an, err := Analyze(f, r0Raw, o)
	if err != nil {
		return false, "", fmt.Errorf("check roofline: %w", err)
	}
	best := an.Best()
	regret := an.TTFTR0/best.TTFT - 1
	ok = regret <= maxRegret
	detail = fmt.Sprintf("r0=%.4f (unclipped %.4f) TTFT %.3f ms; r*=%.4f TTFT %.3f ms (%d evaluations, %v search); best measured r=%.4f TTFT %.3f ms; regret %.2f%% (limit %.2f%%)",
		an.R0, an.R0Raw, 1e3*an.TTFTR0, an.RStar, 1e3*an.TTFTRStar, an.Evaluations, o.Variant, best.R, 1e3*best.TTFT, 100*regret, 100*maxRegret)
	if an.Inverted {
		detail += "; search compared inverted probes"
	}
	if an.Missed {
		detail += fmt.Sprintf("; search missed the grid minimum by %.2f%%", 100*an.GridGap)
	}
	if !an.Unimodal {
		detail += fmt.Sprintf("; measured curve not unimodal (bump of %.3f ms at r=%.3f)", 1e3*an.Bump.Excess, an.Bump.R)
	}
	return ok, detail, nil
}

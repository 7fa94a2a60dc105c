package kvpipe

import (
	"errors"
	"fmt"
	"strings"
)

// CheckRooflineLive checks claim 9 of the specification (§6) on this
// machine: it opens a pipeline with cfg, measures tier t at tokens tokens
// with settings s (profile, r0, the searches, the grid, side-by-side
// confirmation), and holds (ok) when the confirmed TTFT at the roofline's
// r0 exceeds the best confirmed candidate by at most maxRegret (a
// fraction). detail is one line with the figures; err is set only when
// the measurement fails, never because the claim fails. The KV file is
// deleted before returning.
func CheckRooflineLive(cfg Config, t Tier, tokens int, s Settings, maxRegret float64) (ok bool, detail string, err error) {
	if !(maxRegret >= 0) {
		return false, "", fmt.Errorf("check roofline: max regret must be a fraction ≥ 0, got %v", maxRegret)
	}
	p, err := Open(cfg)
	if err != nil {
		return false, "", err
	}
	defer func() { err = errors.Join(err, p.Close()) }()
	res, err := p.Measure(t, tokens, s)
	if err != nil {
		return false, "", err
	}
	c0, found := FindCandidate(res.Confirmed, "r0")
	if !found {
		return false, "", errors.New("check roofline: r0 was not confirmed")
	}
	best := BestCandidate(res.Confirmed)
	regret := c0.TTFT/best.TTFT - 1
	ok = regret <= maxRegret
	detail = fmt.Sprintf("%s, %d tokens: r0=%.4f TTFT %.3f±%.3f ms; best %s r=%.4f TTFT %.3f±%.3f ms; regret %.2f%% (limit %.2f%%)",
		t, tokens, c0.R, 1e3*c0.TTFT, 1e3*c0.SE, strings.Join(best.Names, "/"), best.R, 1e3*best.TTFT, 1e3*best.SE, 100*regret, 100*maxRegret)
	for _, a := range res.Analyses {
		if a.Inverted {
			detail += fmt.Sprintf("; the %s search compared inverted probes", a.Variant)
		}
	}
	return ok, detail, nil
}

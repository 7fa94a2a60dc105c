package main

import (
	"fmt"
	"io"
	"math"
	"os"

	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/models/latency"
)

// latencyFlags are the latency-model and threshold flags shared by the
// commands that measure TEL.
type latencyFlags struct {
	alphaMs, betaMs, xiMs, xiTokens float64
}

func (l *latencyFlags) add(fs *pflag.FlagSet) {
	fs.Float64Var(&l.alphaMs, "alpha-ms", latency.DefaultAlphaMs, "α: prefill time per uncached token, ms/token")
	fs.Float64Var(&l.betaMs, "beta-ms", latency.DefaultBetaMs, "β: fixed TTFT overhead, ms")
	fs.Float64Var(&l.xiMs, "xi-ms", latency.DefaultXiMs, "TEL threshold ξ_s, ms (ξ = (ξ_s − β)/α tokens)")
	fs.Float64Var(&l.xiTokens, "xi-tokens", math.NaN(), "TEL threshold ξ in tokens (overrides --xi-ms)")
}

// resolve returns the latency model and the threshold in tokens; changed
// reports whether a flag was given (pflag.FlagSet.Changed).
func (l *latencyFlags) resolve(changed func(flag string) bool) (latency.Model, float64, error) {
	m := latency.Model{AlphaMs: l.alphaMs, BetaMs: l.betaMs}
	if err := m.Validate(); err != nil {
		return m, 0, fmt.Errorf("flags --alpha-ms/--beta-ms: %w", err)
	}
	if changed("xi-tokens") {
		if changed("xi-ms") {
			return m, 0, fmt.Errorf("flags --xi-ms and --xi-tokens: give one threshold, not both")
		}
		if math.IsNaN(l.xiTokens) || math.IsInf(l.xiTokens, 0) {
			return m, 0, fmt.Errorf("flag --xi-tokens: must be a finite number of tokens")
		}
		return m, l.xiTokens, nil
	}
	if math.IsNaN(l.xiMs) || math.IsInf(l.xiMs, 0) {
		return m, 0, fmt.Errorf("flag --xi-ms: must be a finite number of ms")
	}
	return m, m.XiTokens(l.xiMs), nil
}

// progressTo returns w when it is a terminal, so that progress is shown to
// people and never written into a redirected log; nil otherwise.
func progressTo(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return w
}

package main

import (
	"github.com/spf13/pflag"

	"github.com/tailbound/tailbound/models/latency"
)

// addLatency binds the latency-model and threshold flags, shared by the
// commands that measure TEL, to s (latency.Settings.Resolve checks them).
func addLatency(fs *pflag.FlagSet, s *latency.Settings) {
	*s = latency.DefaultSettings()
	fs.Float64Var(&s.AlphaMs, "alpha-ms", s.AlphaMs, "α: prefill time per uncached token, ms/token")
	fs.Float64Var(&s.BetaMs, "beta-ms", s.BetaMs, "β: fixed TTFT overhead, ms")
	fs.Float64Var(&s.XiMs, "xi-ms", s.XiMs, "TEL threshold ξ_s, ms (ξ = (ξ_s − β)/α tokens)")
	fs.Float64Var(&s.XiTokens, "xi-tokens", s.XiTokens, "TEL threshold ξ in tokens (instead of --xi-ms; not both)")
}

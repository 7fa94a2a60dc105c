package birthdeath

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseDist reads a length distribution in tokens:
//
//	fixed:N              always N tokens
//	geometric:MEAN       geometric on {min, min+1, …} with mean MEAN tokens
//	lognormal:MU,SIGMA   round(exp(N(MU, SIGMA²))) tokens, at least min
//	empirical:FILE       uniform over the field ("prompt" or "response")
//	                     lengths of the canonical trace FILE
//
// min is the smallest allowed length (1 for prompts, 0 for responses).
func ParseDist(spec, field string, min int64) (Dist, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("%s distribution %q: want fixed:N, geometric:MEAN, lognormal:MU,SIGMA or empirical:FILE", field, spec)
	}
	num := func(s, what string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s distribution %q: %s %q is not a finite number", field, spec, what, s)
		}
		return v, nil
	}
	switch kind {
	case "fixed":
		n, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
		if err != nil || n < min || n > MaxLength {
			return nil, fmt.Errorf("%s distribution %q: N must be an integer from %d to 2^40 tokens", field, spec, min)
		}
		return Fixed{N: n}, nil
	case "geometric":
		m, err := num(arg, "MEAN")
		if err != nil {
			return nil, err
		}
		if m < float64(min) {
			return nil, fmt.Errorf("%s distribution %q: MEAN must be ≥ %d tokens", field, spec, min)
		}
		// The 1 − 10⁻⁹ quantile of a geometric is about 20.7 means.
		if q := float64(min) + 20.8*(m-float64(min)); q > MaxLength {
			return nil, fmt.Errorf("%s distribution %q: its upper tail reaches %.3g tokens, past the 2^40-token bound of a turn", field, spec, q)
		}
		return Geometric{Min: min, MeanTokens: m}, nil
	case "lognormal":
		ms, ss, ok := strings.Cut(arg, ",")
		if !ok {
			return nil, fmt.Errorf("%s distribution %q: want lognormal:MU,SIGMA", field, spec)
		}
		mu, err := num(ms, "MU")
		if err != nil {
			return nil, err
		}
		sigma, err := num(ss, "SIGMA")
		if err != nil {
			return nil, err
		}
		if sigma < 0 {
			return nil, fmt.Errorf("%s distribution %q: SIGMA must be ≥ 0", field, spec)
		}
		if q := mu + tailZ*sigma; q > math.Log(MaxLength) {
			return nil, fmt.Errorf("%s distribution %q: its upper tail reaches e^%.4g tokens, past the 2^40-token bound of a turn (e^%.4g)", field, spec, q, math.Log(MaxLength))
		}
		return LogNormal{Mu: mu, Sigma: sigma, Min: min}, nil
	case "empirical":
		return EmpiricalFromTrace(arg, field)
	}
	return nil, fmt.Errorf("%s distribution %q: unknown kind %q (want fixed, geometric, lognormal or empirical)", field, spec, kind)
}

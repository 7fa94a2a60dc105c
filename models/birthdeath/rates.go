package birthdeath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// RateDist is a distribution of per-conversation turn rates, per second.
type RateDist interface {
	// Sample draws a rate, per second (> 0).
	Sample(r *rand.Rand) float64
	// Mean returns the mean rate, per second.
	Mean() float64
	// String names the distribution and its parameters.
	String() string
}

// Gamma is a Gamma distribution of turn rates with the given Shape (k > 0)
// and mean MeanRate (per second); its rate parameter is k/MeanRate seconds.
type Gamma struct {
	Shape    float64
	MeanRate float64
}

// Sample draws a rate, per second, using gonum's Gamma sampler on r.
func (g Gamma) Sample(r *rand.Rand) float64 {
	return distuv.Gamma{Alpha: g.Shape, Beta: g.Shape / g.MeanRate, Src: r}.Rand()
}

// Mean returns MeanRate, per second.
func (g Gamma) Mean() float64 { return g.MeanRate }

// Beta returns the Gamma rate parameter k/mean, in seconds.
func (g Gamma) Beta() float64 { return g.Shape / g.MeanRate }

func (g Gamma) String() string { return fmt.Sprintf("gamma(shape=%g,mean=%g/s)", g.Shape, g.MeanRate) }

// ClassMean returns the weighted mean rate of classes, per second.
func ClassMean(classes []RateClass) float64 {
	var s, w float64
	for _, c := range classes {
		s += c.Rate * c.Weight
		w += c.Weight
	}
	return s / w
}

// ParseRates reads rate classes "RATE:WEIGHT,RATE:WEIGHT,…" (rates per
// second, weights > 0 relative; ":WEIGHT" may be omitted for weight 1).
func ParseRates(spec string) ([]RateClass, error) {
	var out []RateClass
	for _, f := range strings.Split(spec, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		rs, ws, hasW := strings.Cut(f, ":")
		rate, err := strconv.ParseFloat(rs, 64)
		if err != nil || !(rate > 0) || math.IsInf(rate, 0) {
			return nil, fmt.Errorf("rate class %q: rate must be a number > 0 per second", f)
		}
		w := 1.0
		if hasW {
			w, err = strconv.ParseFloat(ws, 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("rate class %q: weight must be a number > 0", f)
			}
		}
		out = append(out, RateClass{Rate: rate, Weight: w})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("rate classes %q: empty list", spec)
	}
	return out, nil
}

// ParseGamma reads "SHAPE:MEAN" (shape > 0, mean rate > 0 per second).
func ParseGamma(spec string) (Gamma, error) {
	ks, ms, ok := strings.Cut(spec, ":")
	if !ok {
		return Gamma{}, fmt.Errorf("gamma %q: want SHAPE:MEAN (mean per second)", spec)
	}
	k, err1 := strconv.ParseFloat(ks, 64)
	m, err2 := strconv.ParseFloat(ms, 64)
	if err1 != nil || err2 != nil || !(k > 0) || !(m > 0) || math.IsInf(k, 0) || math.IsInf(m, 0) {
		return Gamma{}, fmt.Errorf("gamma %q: shape and mean must be numbers > 0", spec)
	}
	return Gamma{Shape: k, MeanRate: m}, nil
}

// ClassDist is the discrete rate distribution of Classes: rate Rate with
// probability proportional to Weight.
type ClassDist []RateClass

// Sample draws a class rate, per second.
func (c ClassDist) Sample(r *rand.Rand) float64 {
	var total float64
	for _, k := range c {
		total += k.Weight
	}
	u := r.Float64() * total
	for _, k := range c {
		if u < k.Weight {
			return k.Rate
		}
		u -= k.Weight
	}
	return c[len(c)-1].Rate
}

// Mean returns the weighted mean rate, per second.
func (c ClassDist) Mean() float64 { return ClassMean(c) }

func (c ClassDist) String() string {
	parts := make([]string, len(c))
	for i, k := range c {
		parts[i] = fmt.Sprintf("%g/s:%g", k.Rate, k.Weight)
	}
	return "classes(" + strings.Join(parts, ",") + ")"
}

// FormatRates writes rate classes as ParseRates reads them:
// RATE:WEIGHT,… (rates per second, relative weights).
func FormatRates(cs []RateClass) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = strconv.FormatFloat(c.Rate, 'g', -1, 64) + ":" + strconv.FormatFloat(c.Weight, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// RateLabel describes p's turn-rate distribution: Rates when set, else the
// rate classes.
func (p Params) RateLabel() string {
	if p.Rates != nil {
		return p.Rates.String()
	}
	return ClassDist(p.Classes).String()
}

package exact

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseDist reads a discrete length distribution: "fixed:N" or
// "pmf:TOKENS:PROB,TOKENS:PROB,…" (tokens ≥ 0, probabilities summing to 1).
func ParseDist(spec string) (Dist, error) {
	if n, ok := strings.CutPrefix(spec, "fixed:"); ok {
		v, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		if err != nil || v < 0 {
			return Dist{}, fmt.Errorf("distribution %q: fixed:N needs an integer N ≥ 0 tokens", spec)
		}
		return Dist{Values: []int64{v}, Probs: []float64{1}}, nil
	}
	rest, ok := strings.CutPrefix(spec, "pmf:")
	if !ok {
		return Dist{}, fmt.Errorf("distribution %q: want fixed:N or pmf:TOKENS:PROB,…", spec)
	}
	var d Dist
	for _, f := range strings.Split(rest, ",") {
		vs, ps, ok := strings.Cut(strings.TrimSpace(f), ":")
		v, err1 := strconv.ParseInt(vs, 10, 64)
		p, err2 := strconv.ParseFloat(ps, 64)
		if !ok || err1 != nil || err2 != nil || v < 0 || !(p >= 0) || math.IsInf(p, 0) {
			return Dist{}, fmt.Errorf("distribution %q: atom %q: want TOKENS:PROB with tokens ≥ 0 and probability ≥ 0", spec, f)
		}
		d.Values, d.Probs = append(d.Values, v), append(d.Probs, p)
	}
	if err := d.validate("length"); err != nil {
		return Dist{}, fmt.Errorf("distribution %q: %w", spec, err)
	}
	return d, nil
}

// ParseSeats reads seats "RATE:HISTORY:CACHED:SILENCE,…": turn rate per
// second, history and cached amount in tokens, silence in steps (a history
// of 0 is an empty seat).
func ParseSeats(spec string) ([]Seat, error) {
	var out []Seat
	for _, f := range strings.Split(spec, ",") {
		parts := strings.Split(strings.TrimSpace(f), ":")
		if len(parts) != 4 {
			return nil, fmt.Errorf("seat %q: want RATE:HISTORY:CACHED:SILENCE", f)
		}
		rate, err := strconv.ParseFloat(parts[0], 64)
		h, err1 := strconv.ParseInt(parts[1], 10, 64)
		x, err2 := strconv.ParseInt(parts[2], 10, 64)
		m, err3 := strconv.Atoi(parts[3])
		if err != nil || err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("seat %q: want numbers RATE:HISTORY:CACHED:SILENCE", f)
		}
		out = append(out, Seat{Rate: rate, History: h, Cached: x, Silence: m})
	}
	if len(out) == 0 || len(out) > maxSeats {
		return nil, fmt.Errorf("seats %q: need 1 to %d seats", spec, maxSeats)
	}
	return out, nil
}

// FormatDist writes d as a pmf specification.
func FormatDist(d Dist) string {
	parts := make([]string, len(d.Values))
	for i, v := range d.Values {
		parts[i] = strconv.FormatInt(v, 10) + ":" + strconv.FormatFloat(d.Probs[i], 'g', -1, 64)
	}
	return "pmf:" + strings.Join(parts, ",")
}

// FormatSeats writes seats as a --seats specification.
func FormatSeats(seats []Seat) string {
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = fmt.Sprintf("%s:%d:%d:%d", strconv.FormatFloat(s.Rate, 'g', -1, 64), s.History, s.Cached, s.Silence)
	}
	return strings.Join(parts, ",")
}

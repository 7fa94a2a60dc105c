package exact

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// ParseDist reads a discrete length distribution: "fixed:N" (N ≥ 0
// tokens) or "pmf:TOKENS:PROB,…" (tokens ≥ 0, probabilities summing to 1),
// as birthdeath.ParseAtoms reads them; other kinds would be cut into too
// many atoms for the solver and are refused.
func ParseDist(spec string) (birthdeath.Atoms, error) {
	if !strings.HasPrefix(spec, "fixed:") && !strings.HasPrefix(spec, "pmf:") {
		return birthdeath.Atoms{}, fmt.Errorf("distribution %q: want fixed:N or pmf:TOKENS:PROB,…", spec)
	}
	return birthdeath.ParseAtoms(spec, "length", 0, 0.5) // one fixed atom: the tail mass plays no part
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

// FormatSeats writes seats as a --seats specification.
func FormatSeats(seats []Seat) string {
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = fmt.Sprintf("%s:%d:%d:%d", strconv.FormatFloat(s.Rate, 'g', -1, 64), s.History, s.Cached, s.Silence)
	}
	return strings.Join(parts, ",")
}

package montecarlo

import (
	"encoding/json"
	"math"
	"testing"
)

// An interval with no value (fewer than two replications gave the ratio
// one) is null in JSON, not an encoding error, and a finite one keeps its
// numbers.
func TestIntervalJSON(t *testing.T) {
	for _, c := range []struct {
		v    Interval
		want string
	}{
		{Interval{Mean: math.NaN(), Half: math.NaN()}, `{"mean":null,"ci95_half_width":null}`},
		{Interval{Mean: 1.5, Half: 0.25}, `{"mean":1.5,"ci95_half_width":0.25}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%v: got %s, %v; want %s", c.v, b, err, c.want)
		}
	}
}

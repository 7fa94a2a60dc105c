package policy

import (
	"math"
	"strconv"

	"github.com/tailbound/tailbound/internal/option"
)

// ParseQHat reads a --qhat setting, T-LRU's next-prompt estimate Q̂:
// "auto" gives 0 (the running mean of the prompts seen), otherwise a finite
// number of tokens > 0.
func ParseQHat(s string) (float64, error) {
	if s == "auto" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, option.Errorf("qhat", "want auto or a number of tokens > 0, got %q", s)
	}
	return v, nil
}

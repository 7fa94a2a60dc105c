package option

import (
	"time"
)

// MinTimeLimit and MaxTimeLimit bound a solve's time limit in seconds
// (--time-limit); 0 means no limit. Below a millisecond a limit is no
// longer meaningful (and 1e-10 s would round to a zero duration, which
// means no limit); above 10^6 s (11.6 days) a duration stays far from
// int64's 292 years.
const (
	MinTimeLimit = 1e-3
	MaxTimeLimit = 1e6
)

// TimeLimit converts the time limit in seconds given to flag to a
// duration: 0 is no limit (a zero duration); otherwise it must lie in
// [MinTimeLimit, MaxTimeLimit] seconds. NaN, infinities, negative values
// and values out of that range are refused, naming the range.
func TimeLimit(flag string, seconds float64) (time.Duration, error) {
	if seconds == 0 {
		return 0, nil
	}
	if !(seconds >= MinTimeLimit && seconds <= MaxTimeLimit) {
		return 0, Errorf(flag, "must be 0 (no limit) or between %v and %v seconds, got %v", MinTimeLimit, MaxTimeLimit, seconds)
	}
	return time.Duration(seconds * float64(time.Second)), nil
}

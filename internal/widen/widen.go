// Package widen is the search behind --target-width of the windowed
// bounds, at turn level (window sizes in steps) and block level (window
// counts): solve with one window setting, then a coarser one, until the
// interval is narrow enough or one window is left.
package widen

// Try is one window setting tried: its parameter (a window size, steps, or
// a window count), the number of windows it made and the interval's
// relative width (upper − lower)/upper it gave.
type Try struct {
	Param, Windows int
	Width          float64
}

// Until solves at p = first, next(first), next(next(first)), … for as long
// as target > 0, the width solve returns is above target and its interval
// has more than one window, and returns the last p solved, the tries (none
// when target is 0: one solve) and whether the last width is at most
// target. next must make fewer windows each time (a larger window, or
// fewer of them); one window is the whole trace's interval, where the
// search ends whatever its width.
func Until(first int, target float64, next func(p int) int, solve func(p int) (windows int, width float64, err error)) (last int, tries []Try, met bool, err error) {
	for p := first; ; p = next(p) {
		n, width, err := solve(p)
		if err != nil {
			return 0, nil, false, err
		}
		if target == 0 {
			return p, nil, false, nil
		}
		tries = append(tries, Try{Param: p, Windows: n, Width: width})
		if width <= target || n <= 1 {
			return p, tries, width <= target, nil
		}
	}
}

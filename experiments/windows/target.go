package windows

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/widen"
)

// Target is what --target-width adds to a windowed document: the window
// counts tried with the width each gave, the width wanted and whether the
// last interval reached it. All three are absent without --target-width.
type Target struct {
	// Tried lists the window counts tried, in order, with the width each
	// gave (fraction).
	Tried []WidthTry `json:"tried,omitempty"`
	// TargetWidth is --target-width (fraction; 0: none) and TargetMet
	// whether the interval reached it.
	TargetWidth float64 `json:"target_width,omitempty"`
	TargetMet   *bool   `json:"target_met,omitempty"`
}

// WidthTry is one window count tried under --target-width.
type WidthTry struct {
	Windows int `json:"windows"`
	// WindowTurns is the windows' size, steps.
	WindowTurns   int     `json:"window_turns"`
	RelativeWidth float64 `json:"relative_width"`
}

// byWidth solves with windows of size steps, then 2·size, 4·size, …
// (widen.Until) and returns the last size solved with what was tried.
// solve returns its interval's window count and relative width (Upper −
// Lower)/Upper. Doubling the window keeps each lower bound certified
// (every window's is) and makes the last try, one window, the whole
// trace's interval, so the search ends; the windows are doubled rather
// than halved in count because the relaxation's loss is at the
// boundaries, and a run's cost grows with a window's size, so the cheap
// counts come first.
func byWidth(size int, target float64, solve func(size int) (windows int, width float64, err error)) (int, Target, error) {
	last, tries, met, err := widen.Until(size, target, func(s int) int { return 2 * s }, solve)
	if err != nil {
		return 0, Target{}, err
	}
	tg := Target{TargetWidth: target}
	for _, tr := range tries {
		tg.Tried = append(tg.Tried, WidthTry{Windows: tr.Windows, WindowTurns: tr.Param, RelativeWidth: tr.Width})
	}
	if target > 0 {
		tg.TargetMet = &met
	}
	return last, tg, nil
}

// addTried adds a row per window count tried to t, the interval's table.
func addTried(t *report.Table, tried []WidthTry) {
	for _, tr := range tried {
		t.Add(report.CellText(fmt.Sprintf("tried %d windows of %d steps: width", tr.Windows, tr.WindowTurns)),
			report.CellFracAs(fmt.Sprintf("%.4f%%", 100*tr.RelativeWidth), tr.RelativeWidth))
	}
}

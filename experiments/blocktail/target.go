package blocktail

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/widen"
)

// WidthTry is one window count tried under --target-width at block level.
type WidthTry struct {
	Windows int `json:"windows"`
	// RelativeWidth is the interval's (upper − lower)/upper at that
	// count (fraction).
	RelativeWidth float64 `json:"relative_width"`
}

// Target is what --target-width adds to the block-level windowed
// document: the counts tried, the width wanted (fraction) and whether the
// last interval reached it; absent without --target-width.
type Target struct {
	Tried       []WidthTry `json:"tried,omitempty"`
	TargetWidth float64    `json:"target_width,omitempty"`
	TargetMet   *bool      `json:"target_met,omitempty"`
}

// byCount bounds with nw windows, then ⌈nw/2⌉, ⌈nw/4⌉, … (widen.Until)
// and returns the last bound with what was tried. Halving the count
// doubles a window (of requests), so the boundaries, where the relaxation
// loses and the stitched schedule is cut, thin out; one window is the
// whole trace's interval (no boundary), where the search ends.
func byCount(nw int, target float64, bound func(nw int) (*Windowed, error)) (*Windowed, Target, error) {
	var w *Windowed
	_, tries, met, err := widen.Until(nw, target, func(n int) int { return (n + 1) / 2 }, func(n int) (int, float64, error) {
		var err error
		if w, err = bound(n); err != nil {
			return 0, 0, err
		}
		return n, w.RelativeWidth, nil
	})
	if err != nil {
		return nil, Target{}, err
	}
	tg := Target{TargetWidth: target}
	for _, tr := range tries {
		tg.Tried = append(tg.Tried, WidthTry{Windows: tr.Windows, RelativeWidth: tr.Width})
	}
	if target > 0 {
		tg.TargetMet = &met
	}
	return w, tg, nil
}

// triedTable is the table of the counts tried (nil when none were).
func triedTable(tg Target) []report.Table {
	if len(tg.Tried) == 0 {
		return nil
	}
	t := report.Table{Title: fmt.Sprintf("window counts tried for a width of at most %.4f%% (--target-width; met: %v)", 100*tg.TargetWidth, *tg.TargetMet),
		Header: []string{"windows", "width (relative)"}}
	for _, tr := range tg.Tried {
		t.Add(report.CellI(int64(tr.Windows)), report.CellFracAs(fmt.Sprintf("%.4f%%", 100*tr.RelativeWidth), tr.RelativeWidth))
	}
	return []report.Table{t}
}

// Package progress tells a person at a terminal how far a long run is: what
// it is doing, how much of it is done out of how much, at what rate and
// how long it has left, on one line of standard error rewritten in place
// and cleared at the end.
//
// Libraries report through a Func, which knows nothing of terminals: a nil
// Func reports nothing. A command turns a Meter, which draws the line,
// into the Func it passes down, and only when standard error is a terminal
// (Shown), so that a pipe or a file never receives a carriage return.
package progress

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Func receives a run's progress: what it is doing (a short phrase, such
// as "windows" or "replay"), done units of it out of total (total ≤ 0 when
// the total is not known). It may be called from several goroutines.
type Func func(what string, done, total int64)

// Report calls f when it is not nil.
func (f Func) Report(what string, done, total int64) {
	if f != nil {
		f(what, done, total)
	}
}

// Within returns a Func that reports through f with what prefixed by
// prefix and ": " — a solve inside a grid point, say — or nil when f is.
func (f Func) Within(prefix string) Func {
	if f == nil {
		return nil
	}
	return func(what string, done, total int64) { f(prefix+": "+what, done, total) }
}

// Total returns a Func that reports through f with total in place of a
// report's total ≤ 0 — a count its reporter cannot know (windows of a
// trace streamed) and its caller can — or nil when f is.
func (f Func) Total(total int64) Func {
	if f == nil {
		return nil
	}
	return func(what string, done, t int64) {
		if t <= 0 {
			t = total
		}
		f(what, done, t)
	}
}

// ParseFlag removes the global --progress[=true|false] from a command's
// args (up to a "--") and returns the rest and the override it gives: nil
// when absent, and the last one given otherwise.
func ParseFlag(args []string) ([]string, *bool, error) {
	var out []string
	var override *bool
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		v, ok := strings.CutPrefix(a, "--progress")
		if !ok || (v != "" && v[0] != '=') {
			out = append(out, a)
			continue
		}
		b := true
		if v != "" {
			var err error
			if b, err = strconv.ParseBool(v[1:]); err != nil {
				return nil, nil, fmt.Errorf("flag --progress: %q is not true or false", v[1:])
			}
		}
		override = &b
	}
	return out, override, nil
}

// Shown reports whether progress goes to w: override when it is not nil
// (the --progress flag), otherwise whether w is a terminal.
func Shown(w io.Writer, override *bool) bool {
	if override != nil {
		return *override
	}
	return IsTerminal(w)
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Meter draws progress on one line of w: "what: done/total (p%) · rate/s ·
// m:ss left", truncated to the terminal's width, at most every Every, and
// rewritten in place ("\r" then the line then an erase to its end).
type Meter struct {
	w     io.Writer
	width int           // columns; the line is cut to width − 1 (0: 80)
	every time.Duration // least time between two drawings
	now   func() time.Time

	mu    sync.Mutex
	what  string
	done  int64
	total int64
	since time.Time // when the count (total) began
	drawn time.Time // when the line was last drawn
	dirty bool      // a line is on the terminal
}

// Every is the least time between two drawings of a Meter's line.
const Every = 200 * time.Millisecond

// NewMeter returns a meter drawing on w, a terminal width columns wide
// (0: 80 columns).
func NewMeter(w io.Writer, width int) *Meter {
	if width <= 0 {
		width = 80
	}
	return &Meter{w: w, width: width, every: Every, now: time.Now}
}

// Func returns the meter as a Func.
func (m *Meter) Func() Func { return m.Report }

// Report draws the line for what, done of total, unless it was drawn less
// than Every ago, what is unchanged and done has not reached total. A new
// count — another total, or done going back — restarts the rate and
// time-left clock (a new what alone does not: a suite names the grid point
// it is at while counting the points).
func (m *Meter) Report(what string, done, total int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.now()
	if !m.dirty || total != m.total || done < m.done {
		m.since = t
	} else if what == m.what && t.Sub(m.drawn) < m.every && (total <= 0 || done < total) {
		return
	}
	m.what, m.done, m.total = what, done, total
	m.drawn, m.dirty = t, true
	fmt.Fprintf(m.w, "\r%s\x1b[K", cut(Line(what, done, total, t.Sub(m.since)), m.width-1))
}

// Clear erases the line, if one is drawn; the meter can be used again.
func (m *Meter) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirty {
		fmt.Fprint(m.w, "\r\x1b[K")
	}
	m.dirty = false
}

// Line is the text of a progress line for what, done of total (≤ 0:
// unknown) after elapsed: the rate is done per second of elapsed and the
// time left (total − done) at that rate.
func Line(what string, done, total int64, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(what)
	b.WriteString(": ")
	if total > 0 {
		fmt.Fprintf(&b, "%d/%d (%.0f%%)", done, total, 100*float64(done)/float64(total))
	} else {
		fmt.Fprintf(&b, "%d", done)
	}
	s := elapsed.Seconds()
	if s > 0 && done > 0 {
		rate := float64(done) / s
		fmt.Fprintf(&b, " · %s/s", count(rate))
		if total > 0 && done <= total {
			fmt.Fprintf(&b, " · %s left", clock(time.Duration(float64(total-done)/rate*float64(time.Second))))
		}
	}
	fmt.Fprintf(&b, " · %s", clock(elapsed))
	return b.String()
}

// count writes a rate with three significant figures and an SI prefix.
func count(r float64) string {
	switch {
	case r >= 1e9:
		return fmt.Sprintf("%.3gG", r/1e9)
	case r >= 1e6:
		return fmt.Sprintf("%.3gM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.3gk", r/1e3)
	}
	return fmt.Sprintf("%.3g", r)
}

// clock writes d as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// cut shortens s to at most n characters (runes), ending in "…" when cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// Reader is an io.Reader that reports the bytes read through it to F as
// What, of Total bytes (≤ 0: unknown, as for standard input).
type Reader struct {
	R     io.Reader
	What  string
	Total int64
	F     Func
	n     int64
}

// Read reads from R and reports the bytes read so far.
func (r *Reader) Read(p []byte) (int, error) {
	n, err := r.R.Read(p)
	r.n += int64(n)
	r.F.Report(r.What, r.n, r.Total)
	return n, err
}

// Size returns the size in bytes of the regular file r reads, or 0 when r
// is not one (a pipe, standard input).
func Size(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

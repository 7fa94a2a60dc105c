package progress

import (
	"bytes"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLine: lines worked by hand. 30 of 120 in 10 s is 3/s, 90 left at
// 3/s is 30 s; 2,500,000 in 2 s is 1.25M/s; an unknown total shows the
// count and the rate (4000 in 4 s: 1k/s) but no time left.
func TestLine(t *testing.T) {
	for _, c := range []struct {
		what        string
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{"windows", 30, 120, 10 * time.Second, "windows: 30/120 (25%) · 3/s · 0:30 left · 0:10"},
		{"replay", 2_500_000, 10_000_000, 2 * time.Second, "replay: 2500000/10000000 (25%) · 1.25M/s · 0:06 left · 0:02"},
		{"read", 7, 0, 0, "read: 7 · 0:00"},
		{"read", 4000, -1, 4 * time.Second, "read: 4000 · 1k/s · 0:04"},
		{"grid", 1, 2, 3600 * time.Second, "grid: 1/2 (50%) · 0.000278/s · 1:00:00 left · 1:00:00"},
	} {
		if got := Line(c.what, c.done, c.total, c.elapsed); got != c.want {
			t.Errorf("Line(%q, %d, %d, %v) = %q, want %q", c.what, c.done, c.total, c.elapsed, got, c.want)
		}
	}
}

// fakeClock advances by step at every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

// TestMeterThrottlesAndClears: with a clock advancing 50 ms a report, the
// line is drawn at the first report, then every fourth (200 ms), at once
// when what changes and when done reaches total; a new total restarts the
// clock (the elapsed time shown is 0:00 again); every drawing starts with
// "\r" and ends with the erase, the line is cut to width − 1 characters
// and Clear erases it once.
func TestMeterThrottlesAndClears(t *testing.T) {
	var buf bytes.Buffer
	m := NewMeter(&buf, 40)
	clk := &fakeClock{t: time.Unix(0, 0), step: 50 * time.Millisecond}
	m.now = clk.now
	for i := int64(1); i <= 9; i++ {
		m.Report("a long phase name that will not fit", i, 9)
	}
	m.Report("b", 1, 0)
	m.Clear()
	m.Clear()
	draws := strings.Split(buf.String(), "\r")[1:]
	// Reports at 50 … 450 ms: drawn at 50, 250, 450 (also the last, 9/9),
	// then "b" at once, then one erase.
	if len(draws) != 5 {
		t.Fatalf("%d drawings, want 5: %q", len(draws), buf.String())
	}
	for _, d := range draws[:4] {
		if !strings.HasSuffix(d, "\x1b[K") {
			t.Errorf("drawing %q does not end with the erase", d)
		}
		if n := len([]rune(strings.TrimSuffix(d, "\x1b[K"))); n > 39 {
			t.Errorf("drawing %q is %d characters wide, over 39", d, n)
		}
	}
	if !strings.HasPrefix(draws[2], "a long phase name that will not fit: 9…") {
		t.Errorf("third drawing %q", draws[2])
	}
	if draws[3] != "b: 1 · 0:00\x1b[K" || draws[4] != "\x1b[K" {
		t.Errorf("last drawings %q, %q", draws[3], draws[4])
	}
}

// TestNilFuncReportsNothing: a nil Func and its Within are no-ops, and
// Within prefixes what.
func TestNilFuncReportsNothing(t *testing.T) {
	var f Func
	f.Report("x", 1, 2)
	if f.Within("p") != nil {
		t.Error("nil Within is not nil")
	}
	var got atomic.Value
	g := Func(func(what string, done, total int64) { got.Store(what) })
	g.Within("point 3/15").Report("windows", 1, 2)
	if got.Load() != "point 3/15: windows" {
		t.Errorf("Within reported %q", got.Load())
	}
}

// TestShown: a buffer is no terminal; the override wins either way.
func TestShown(t *testing.T) {
	yes, no := true, false
	var b bytes.Buffer
	if Shown(&b, nil) || !Shown(&b, &yes) || Shown(&b, &no) {
		t.Error("Shown: buffer without override, with true, with false")
	}
}

// TestParseFlag: the flag is taken out wherever it stands before "--",
// bare means true, the last one wins, --progress-x and arguments after
// "--" are left alone, and a value that is not a boolean is an error
// naming the flag.
func TestParseFlag(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		args []string
		rest []string
		want *bool
	}{
		{[]string{"--trace", "x"}, []string{"--trace", "x"}, nil},
		{[]string{"--progress", "--trace", "x"}, []string{"--trace", "x"}, &yes},
		{[]string{"--trace", "x", "--progress=false"}, []string{"--trace", "x"}, &no},
		{[]string{"--progress=0", "--progress=true"}, nil, &yes},
		{[]string{"--progress-x", "--", "--progress"}, []string{"--progress-x", "--", "--progress"}, nil},
	} {
		rest, got, err := ParseFlag(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !slices.Equal(rest, c.rest) || (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%v: rest %v, override %v; want %v, %v", c.args, rest, got, c.rest, c.want)
		}
	}
	if _, _, err := ParseFlag([]string{"--progress=maybe"}); err == nil || !strings.Contains(err.Error(), "--progress") {
		t.Errorf("--progress=maybe: error %v", err)
	}
}

// TestTotal: Total fills in an unknown total (≤ 0) and leaves a known one;
// a nil Func stays nil.
func TestTotal(t *testing.T) {
	if Func(nil).Total(5) != nil {
		t.Fatal("nil Func: Total is not nil")
	}
	var got [][2]int64
	f := Func(func(_ string, done, total int64) { got = append(got, [2]int64{done, total}) }).Total(8)
	f("windows", 1, 0)
	f("windows", 2, -1)
	f("windows", 3, 4)
	want := [][2]int64{{1, 8}, {2, 8}, {3, 4}}
	if !slices.Equal(got, want) {
		t.Fatalf("reports %v, want %v", got, want)
	}
}

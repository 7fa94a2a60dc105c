package montecarlo

import (
	"bytes"
	"encoding/csv"
	"math"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
)

// The table shows each figure as mean ± half-width, rounded; CSV writes
// the mean and the half-width in columns of their own, unrounded: a mean
// TTFT of 100/3 ± 5/3 ms shows "33.33 ± 1.67" and is written
// 33.333333333333336 and 1.6666666666666667; a gap with no value (NaN) is
// n/a and written as empty cells, beside another policy's gap of
// 100·(1/8 ± 1/16) %.
func TestReportCSVIntervals(t *testing.T) {
	cfg := smallConfig(t)
	third := Interval{Mean: 100.0 / 3, Half: 5.0 / 3}
	none := Interval{Mean: math.NaN(), Half: math.NaN()}
	stats := []Stats{{Name: "lru", MeanTTFT: third, GapToReference: none},
		{Name: "tlru", GapToReference: Interval{Mean: 1.0 / 8, Half: 1.0 / 16}}}
	_, tbl := Report(cfg, stats)
	if got := tbl.Rows[0][3]; got != "33.33 ± 1.67" {
		t.Errorf("mean TTFT shows %q", got)
	}
	if got := tbl.Rows[0][7]; got != "n/a (< 2 replications with a value)" {
		t.Errorf("gap shows %q", got)
	}
	var buf bytes.Buffer
	if err := report.Emit(&buf, "csv", nil, tbl); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	cell := func(i int, h string) string {
		j, ok := col[h]
		if !ok {
			t.Fatalf("no column %q in %q", h, rows[0])
		}
		return rows[i][j]
	}
	got := func(h string) string { return cell(1, h) }
	if m, h := got("mean TTFT (ms)"), got("mean TTFT (ms) ±95%"); m != "33.333333333333336" || h != "1.6666666666666667" {
		t.Errorf("CSV mean TTFT %q ± %q", m, h)
	}
	if m, h := got("TEL gap to to-belady (%)"), got("TEL gap to to-belady (%) ±95%"); m != "" || h != "" {
		t.Errorf("CSV gap with no value %q ± %q", m, h)
	}
	if m, h := cell(2, "TEL gap to to-belady (%)"), cell(2, "TEL gap to to-belady (%) ±95%"); m != "12.5" || h != "6.25" {
		t.Errorf("CSV gap %q ± %q, want 12.5 ± 6.25", m, h)
	}
}

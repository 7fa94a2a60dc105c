package sim

import (
	"bytes"
	"encoding/csv"
	"math"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/metrics"
	"github.com/tailbound/tailbound/models/replay"
)

// csvRows writes tables as CSV and reads the records back.
func csvRows(t *testing.T, tables ...report.Table) [][]string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Emit(&buf, "csv", nil, tables...); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// The tables show rounded figures and the CSV writes them unrounded: lru
// has TEL 1/3 token (shown 0.3) and 1 violation in 3 turns (shown
// "1 (33.3%)", written as the count 1); tlru's TEL 1/6 improves on lru's
// by (1/3 − 1/6)/(1/3) = 1/2, its P50 0.1 on lru's 0.3 by 2/3, and its
// P90 has no improvement over lru's 0.
func TestReportFullPrecision(t *testing.T) {
	third := 1.0 / 3
	lru := metrics.Summary{Turns: 3, TELTokens: third, TELMs: 10 * third, MeanTTFTMs: 12.3456789, P50: 0.3,
		Violations: 1, ViolationPct: third, HitRatio: math.NaN()}
	tlru := metrics.Summary{Turns: 3, TELTokens: third / 2, P50: 0.1, HitRatio: 0.25}
	results := []replay.Result{{Name: "lru", Summary: lru}, {Name: "tlru", Summary: tlru}}
	_, tables, err := Report(results, Settings{}, Labels{Trace: "t", Baseline: "lru"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tables[0].Rows[0][1] + " " + tables[0].Rows[0][3] + " " + tables[0].Rows[0][8]; got != "0.3 12.35 1 (33.3%)" {
		t.Errorf("lru shows %q", got)
	}
	main := csvRows(t, tables[0])
	if got, want := main[1][1], "0.3333333333333333"; got != want {
		t.Errorf("CSV TEL %q, want %q", got, want)
	}
	if got, want := main[1][3], "12.3456789"; got != want {
		t.Errorf("CSV mean TTFT %q, want %q", got, want)
	}
	if got := main[1][8] + "|" + main[1][9]; got != "1|" {
		t.Errorf("CSV violations|hit ratio %q, want the count and no hit ratio", got)
	}
	impr := csvRows(t, tables[1])
	if impr[0][1] != "TEL (fraction)" || impr[2][1] != "0.5" {
		t.Errorf("CSV improvement header %q, tlru TEL %q; want TEL (fraction), 0.5", impr[0][1], impr[2][1])
	}
	if got, want := impr[2][3], "0.6666666666666666"; got != want {
		t.Errorf("CSV P50 improvement %q, want %q", got, want)
	}
	if got := impr[2][7]; got != "1" {
		t.Errorf("CSV SLO improvement from 1 violation to 0 is %q, want 1", got)
	}
	if tables[1].Rows[1][4] != "n/a (baseline 0)" || impr[2][4] != "" {
		t.Errorf("P90 improvement over a baseline of 0 shows %q, CSV %q; want n/a, empty", tables[1].Rows[1][4], impr[2][4])
	}
}

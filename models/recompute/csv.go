package recompute

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Measurement is one row of a measurement CSV.
type Measurement struct {
	// Tier names the storage tier (or any label of a hardware set-up).
	Tier string
	// Tokens is the context length N, tokens; 0 when the file has no
	// tokens column.
	Tokens int
	// R is the recompute ratio, a fraction of tokens in [0, 1].
	R float64
	// TTFT is the measured time to first token, seconds; the mean of Reps
	// runs.
	TTFT float64
	// Reps is the number of runs TTFT averages (1 without a reps column).
	Reps int
	// Line is the row's line in the file.
	Line int
}

// CSV columns of a measurement file. The header names them in any order;
// other columns are ignored; lines starting with '#' are comments.
const (
	ColTier   = "tier"   // storage tier label, non-empty text
	ColR      = "r"      // recompute ratio, fraction of tokens in [0, 1]
	ColTTFT   = "ttft_s" // TTFT, seconds > 0
	ColReps   = "reps"   // optional: runs averaged in ttft_s, integer ≥ 1 (default 1)
	ColTokens = "tokens" // optional: context length N, integer ≥ 1 tokens
)

// ReadMeasurements reads a measurement CSV (header: tier,r,ttft_s and
// optionally reps and tokens). Errors are one line naming the file (name),
// the line and the field.
func ReadMeasurements(rd io.Reader, name string) ([]Measurement, error) {
	cr := csv.NewReader(rd)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (want a header with %s,%s,%s)", name, ColTier, ColR, ColTTFT)
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	hline, _ := cr.FieldPos(0)
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := col[h]; dup && h != "" {
			return nil, fmt.Errorf("%s:%d: column %q appears twice", name, hline, h)
		}
		col[h] = i
	}
	for _, c := range []string{ColTier, ColR, ColTTFT} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:%d: header must name columns %s,%s,%s (optional %s,%s); %q is missing",
				name, hline, ColTier, ColR, ColTTFT, ColReps, ColTokens, c)
		}
	}
	var out []Measurement
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if len(out) == 0 {
				return nil, fmt.Errorf("%s: no measurements after the header", name)
			}
			return out, nil
		}
		if err != nil {
			return nil, csvErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		field := func(c string) (string, bool, error) {
			i, ok := col[c]
			if !ok {
				return "", false, nil
			}
			if i >= len(rec) {
				return "", true, fmt.Errorf("%s:%d: field %q: missing", name, line, c)
			}
			return strings.TrimSpace(rec[i]), true, nil
		}
		num := func(c string, ok func(float64) bool, want string) (float64, bool, error) {
			s, present, err := field(c)
			if err != nil || !present {
				return 0, present, err
			}
			v, perr := strconv.ParseFloat(s, 64)
			if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) || !ok(v) {
				return 0, true, fmt.Errorf("%s:%d: field %q: want %s, got %q", name, line, c, want, s)
			}
			return v, true, nil
		}
		m := Measurement{Reps: 1, Line: line}
		tierName, _, err := field(ColTier)
		if err != nil {
			return nil, err
		}
		if tierName == "" {
			return nil, fmt.Errorf("%s:%d: field %q: empty", name, line, ColTier)
		}
		m.Tier = tierName
		if m.R, _, err = num(ColR, func(v float64) bool { return v >= 0 && v <= 1 }, "a fraction in [0, 1]"); err != nil {
			return nil, err
		}
		if m.TTFT, _, err = num(ColTTFT, func(v float64) bool { return v > 0 }, "seconds > 0"); err != nil {
			return nil, err
		}
		isCount := func(v float64) bool { return v >= 1 && v <= 1e9 && v == math.Trunc(v) }
		if v, ok, err := num(ColReps, isCount, "an integer ≥ 1"); err != nil {
			return nil, err
		} else if ok {
			m.Reps = int(v)
		}
		if v, ok, err := num(ColTokens, isCount, "an integer ≥ 1 tokens"); err != nil {
			return nil, err
		} else if ok {
			m.Tokens = int(v)
		}
		out = append(out, m)
	}
}

func csvErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// WriteMeasurements writes ms as a measurement CSV with all five columns,
// TTFT in seconds with nanosecond resolution.
func WriteMeasurements(w io.Writer, ms []Measurement) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{ColTier, ColTokens, ColR, ColTTFT, ColReps}); err != nil {
		return err
	}
	for _, m := range ms {
		rec := []string{m.Tier, strconv.Itoa(m.Tokens), strconv.FormatFloat(m.R, 'f', -1, 64),
			strconv.FormatFloat(m.TTFT, 'f', 9, 64), strconv.Itoa(m.Reps)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

package latency

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadPoints reads measured (uncached tokens, TTFT) pairs from CSV with a
// header row naming the columns "uncached_tokens" and "ttft_ms" (any order,
// other columns ignored). name is used in errors, which give the line and
// the column.
func ReadPoints(r io.Reader, name string) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (want a header with uncached_tokens,ttft_ms)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	ib, okB := col["uncached_tokens"]
	it, okT := col["ttft_ms"]
	if !okB || !okT {
		return nil, fmt.Errorf("%s:1: header must name columns uncached_tokens and ttft_ms, got %q", name, strings.Join(header, ","))
	}
	var pts []Point
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return pts, nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0) // records always have a field 0
		get := func(i int, field string) (float64, error) {
			if i >= len(rec) {
				return 0, fmt.Errorf("%s:%d: field %q: missing", name, line, field)
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return 0, fmt.Errorf("%s:%d: field %q: want a finite number ≥ 0, got %q", name, line, field, rec[i])
			}
			return v, nil
		}
		b, err := get(ib, "uncached_tokens")
		if err != nil {
			return nil, err
		}
		t, err := get(it, "ttft_ms")
		if err != nil {
			return nil, err
		}
		pts = append(pts, Point{Uncached: b, TTFTMs: t})
	}
}

// Package seeds runs an experiment over several seeds of a synthetic
// workload and summarizes every figure by its mean and the 95 % confidence
// interval of the mean from Student's t distribution over the seeds
// (half-width t₀.₉₇₅,ₙ₋₁ · s/√n, s the sample standard deviation).
//
// The summary is generic over the report tables and JSON documents the
// commands already print: a table cell whose numbers differ across seeds
// prints each such number as "mean ± half-width" (with as many decimals as
// the per-seed cells), a number that is the same on every seed prints as
// it is; a JSON number that differs becomes an object with its mean,
// interval and per-seed values.
package seeds

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tailbound/tailbound/experiments/report"
)

// Parse reads a --seeds value: "N" means the N seeds first, first+1, …,
// first+N−1 (first is --seed), and "A-B" the seeds A through B.
func Parse(s string, first uint64) ([]uint64, error) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, "-"); ok {
		lo, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
		hi, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
		if err1 != nil || err2 != nil || hi < lo {
			return nil, fmt.Errorf("flag --seeds: want N or A-B with A ≤ B, got %q", s)
		}
		if hi-lo >= 10000 {
			return nil, fmt.Errorf("flag --seeds: at most 10000 seeds, got %q", s)
		}
		var out []uint64
		for v := lo; ; v++ {
			out = append(out, v)
			if v == hi {
				break
			}
		}
		return out, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < 1 || n > 10000 {
		return nil, fmt.Errorf("flag --seeds: want a count 1…10000 or a range A-B, got %q", s)
	}
	if first > math.MaxUint64-n {
		return nil, fmt.Errorf("flag --seeds: seeds %d…%d+%d overflow", first, first, n)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = first + uint64(i)
	}
	return out, nil
}

// Label names a seed list for titles: "seeds 1–5" for a run of
// consecutive seeds, else the seeds comma-separated.
func Label(seeds []uint64) string {
	if len(seeds) == 1 {
		return fmt.Sprintf("seed %d", seeds[0])
	}
	consecutive := true
	for i := 1; i < len(seeds); i++ {
		if seeds[i] != seeds[i-1]+1 {
			consecutive = false
		}
	}
	if consecutive {
		return fmt.Sprintf("seeds %d–%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = strconv.FormatUint(s, 10)
	}
	return "seeds " + strings.Join(parts, ",")
}

// Note is the sentence a summarized output carries to say what its
// intervals are.
func Note(seeds []uint64) string {
	return fmt.Sprintf("%s: mean ± half-width of the 95%% Student-t interval over %d seeds", Label(seeds), len(seeds))
}

// Run calls f once per seed, at most workers at a time (workers < 1 means
// 1), and returns the results in the order of seeds, so that the output
// does not depend on scheduling. The first error (in seed order) is
// returned, prefixed "seed N:" when there are several seeds (with one,
// often a trace file's run, no seed was asked for: issue 35 item 8).
func Run[T any](seeds []uint64, workers int, f func(seed uint64) (T, error)) ([]T, error) {
	if workers < 1 {
		workers = 1
	}
	out := make([]T, len(seeds))
	errs := make([]error, len(seeds))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, s := range seeds {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, s uint64) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = f(s)
		}(i, s)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && len(seeds) == 1 {
			return nil, err // no seed was asked for: a trace file, or the one --seed
		}
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", seeds[i], err)
		}
	}
	return out, nil
}

// TQuantile975 is the 0.975 quantile of Student's t distribution with df
// degrees of freedom (df ≥ 1), the multiplier of a two-sided 95 % interval.
func TQuantile975(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// Interval returns the mean of xs and the half-width of its 95 % Student-t
// confidence interval (0 for fewer than two values).
func Interval(xs []float64) (mean, half float64) {
	n := float64(len(xs))
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	return mean, TQuantile975(len(xs)-1) * sd / math.Sqrt(n)
}

// number matches a decimal number in a cell.
var number = regexp.MustCompile(`-?[0-9]+(?:\.[0-9]+)?`)

// Cell summarizes one cell over seeds (cells[k] from seed k): numbers that
// differ across seeds print as "mean ± half-width"; the rest of the text
// must agree across seeds, else the distinct values are joined with " | ".
func Cell(cells []string) string {
	first := cells[0]
	same := true
	for _, c := range cells[1:] {
		if c != first {
			same = false
		}
	}
	if same {
		return first
	}
	tmpl := number.ReplaceAllString(first, "#")
	locs := make([][][]int, len(cells))
	for k, c := range cells {
		if number.ReplaceAllString(c, "#") != tmpl {
			return distinct(cells)
		}
		locs[k] = number.FindAllStringIndex(c, -1)
	}
	var b strings.Builder
	prev := 0
	for t, loc := range locs[0] {
		b.WriteString(first[prev:loc[0]])
		prev = loc[1]
		xs := make([]float64, len(cells))
		dec := 0
		equal := true
		for k, c := range cells {
			tok := c[locs[k][t][0]:locs[k][t][1]]
			if tok != first[loc[0]:loc[1]] {
				equal = false
			}
			xs[k], _ = strconv.ParseFloat(tok, 64)
			if i := strings.IndexByte(tok, '.'); i >= 0 && len(tok)-i-1 > dec {
				dec = len(tok) - i - 1
			}
		}
		if equal {
			b.WriteString(first[loc[0]:loc[1]])
			continue
		}
		if dec == 0 {
			dec = 1
		}
		m, h := Interval(xs)
		b.WriteString(report.F(m, dec) + " ± " + report.F(h, dec))
	}
	b.WriteString(first[prev:])
	return b.String()
}

// plainCell summarizes one cell over seeds from its full-precision values
// (plains[k], as CSV writes them; frac when they are fractions shown as
// percentages) as well as its text: numbers that differ across seeds
// become their mean and 95% half-width, computed from the full values,
// so that rounding each seed's cell does not move the interval. A cell
// that shows one number shows that interval at the cell's decimals; any
// other keeps Cell's text, and CSV has the interval of its value.
func plainCell(texts, plains []string, frac bool) report.Cell {
	xs := make([]float64, len(plains))
	numeric, equal := true, true
	for k, p := range plains {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			numeric = false
		}
		xs[k] = v
		equal = equal && p == plains[0]
	}
	if equal || !numeric {
		c := report.Cell{Text: Cell(texts), Frac: frac}
		if equal {
			c.Plain = plains[0]
		}
		return c
	}
	m, h := Interval(xs)
	c := report.CellCI(m, h, 0)
	c.Text, c.Frac = Cell(texts), frac
	tmpl := number.ReplaceAllString(texts[0], "#")
	dec := 0
	for _, t := range texts {
		toks := number.FindAllString(t, -1)
		if len(toks) != 1 || number.ReplaceAllString(t, "#") != tmpl {
			return c
		}
		if i := strings.IndexByte(toks[0], '.'); i >= 0 && len(toks[0])-i-1 > dec {
			dec = len(toks[0]) - i - 1
		}
	}
	if dec == 0 {
		dec = 1
	}
	scale := 1.0
	if frac {
		scale = 100
	}
	c.Text = strings.Replace(tmpl, "#", report.F(scale*m, dec)+" ± "+report.F(scale*h, dec), 1)
	return c
}

func distinct(cells []string) string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return strings.Join(out, " | ")
}

// Tables summarizes per-seed tables (per[k] from seed k, all of the same
// shape) cell by cell with Cell; each title (the first seed's) is followed
// by note.
func Tables(per [][]report.Table, note string) ([]report.Table, error) {
	if len(per) == 0 {
		return nil, fmt.Errorf("seeds: no runs to summarize")
	}
	out := make([]report.Table, len(per[0]))
	for i, t := range per[0] {
		o := report.Table{Title: t.Title, Header: t.Header}
		if note != "" {
			if o.Title != "" {
				o.Title += " — "
			}
			o.Title += note
		}
		plain := true
		for k := range per {
			if len(per[k]) != len(per[0]) {
				return nil, fmt.Errorf("seeds: table %q differs in shape across seeds", t.Title)
			}
			plain = plain && per[k][i].HasPlain()
		}
		for r := range t.Rows {
			row := make([]string, len(t.Rows[r]))
			cells := make([]report.Cell, len(row))
			for j := range row {
				texts := make([]string, len(per))
				plains := make([]string, len(per))
				for k := range per {
					pk := per[k][i]
					if len(pk.Rows) != len(t.Rows) || len(pk.Rows[r]) != len(row) || plain && len(pk.Plain[r]) != len(row) {
						return nil, fmt.Errorf("seeds: table %q differs in shape across seeds", t.Title)
					}
					texts[k] = pk.Rows[r][j]
					if plain {
						plains[k] = pk.Plain[r][j]
					}
				}
				if plain {
					cells[j] = plainCell(texts, plains, j < len(t.Fraction) && t.Fraction[j])
				} else {
					row[j] = Cell(texts)
				}
			}
			if plain {
				o.Add(cells...)
			} else {
				o.Rows = append(o.Rows, row)
			}
		}
		out[i] = o
	}
	return out, nil
}

// pm matches "mean ± half-width".
var pm = regexp.MustCompile(`(-?[0-9]+(?:\.[0-9]+)?) ± ([0-9]+(?:\.[0-9]+)?)`)

// CSVColumns prepares summarized tables for CSV, whose cells are plain
// values. A table built with Add is kept: CSV writes its Plain cells and
// half-widths. In any other, every column holding an interval is split into the column of its
// means (header unchanged) and the column of its half-widths (header
// followed by " ±95%"); a cell without an interval has half-width 0 when it
// holds a number, none otherwise.
func CSVColumns(tables []report.Table) []report.Table {
	out := make([]report.Table, len(tables))
	for i, t := range tables {
		if t.HasPlain() {
			out[i] = t // written from its full-precision cells
			continue
		}
		split := make([]bool, len(t.Header))
		for _, r := range t.Rows {
			for j, c := range r {
				if pm.MatchString(c) {
					split[j] = true
				}
			}
		}
		o := report.Table{Title: t.Title}
		for j, h := range t.Header {
			o.Header = append(o.Header, h)
			if split[j] {
				o.Header = append(o.Header, h+" ±95%")
			}
		}
		for _, r := range t.Rows {
			var row []string
			for j, c := range r {
				if !split[j] {
					row = append(row, c)
					continue
				}
				mean := pm.ReplaceAllString(c, "$1")
				half := pm.ReplaceAllString(c, "$2")
				if !pm.MatchString(c) {
					half = ""
					if number.MatchString(c) {
						half = number.ReplaceAllString(c, "0")
					}
				}
				row = append(row, mean, half)
			}
			o.Rows = append(o.Rows, row)
		}
		out[i] = o
	}
	return out
}

// Estimate is a JSON number summarized over seeds.
type Estimate struct {
	// Mean is the mean over seeds.
	Mean float64 `json:"mean"`
	// Low and High bound the 95 % Student-t interval of the mean.
	Low  float64 `json:"ci95_low"`
	High float64 `json:"ci95_high"`
	// PerSeed are the values, in the order of the seeds.
	PerSeed []float64 `json:"per_seed"`
}

// Doc summarizes per-seed JSON documents (each already decoded into
// map[string]any / []any / float64 / string / bool / nil, as encoding/json
// decodes into any): numbers that differ across seeds become an Estimate;
// values that agree stay; other disagreements (strings, shapes) become the
// list of per-seed values.
func Doc(per []any) any {
	first := per[0]
	switch v := first.(type) {
	case map[string]any:
		out := map[string]any{}
		for key := range v {
			vals := make([]any, len(per))
			for k, p := range per {
				m, ok := p.(map[string]any)
				if !ok {
					return per
				}
				vals[k] = m[key]
			}
			out[key] = Doc(vals)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i := range v {
			vals := make([]any, len(per))
			for k, p := range per {
				a, ok := p.([]any)
				if !ok || len(a) != len(v) {
					return per
				}
				vals[k] = a[i]
			}
			out[i] = Doc(vals)
		}
		return out
	case float64:
		xs := make([]float64, len(per))
		equal := true
		for k, p := range per {
			x, ok := p.(float64)
			if !ok {
				return per
			}
			xs[k] = x
			if x != v {
				equal = false
			}
		}
		if equal {
			return v
		}
		m, h := Interval(xs)
		return Estimate{Mean: m, Low: m - h, High: m + h, PerSeed: xs}
	default:
		for _, p := range per[1:] {
			if fmt.Sprint(p) != fmt.Sprint(first) {
				return per
			}
		}
		return first
	}
}

// Output is one seed's run as a command prints it: its JSON document and
// its tables.
type Output struct {
	Doc    any
	Tables []report.Table
}

// Summary is the JSON document of a run over several seeds.
type Summary struct {
	// Seeds are the seeds run, in order.
	Seeds []uint64 `json:"seeds"`
	// Interval says what the intervals are.
	Interval string `json:"interval"`
	// Summary is the per-seed documents merged by Doc.
	Summary any `json:"summary"`
}

// Summarize merges per-seed outputs (per[k] from seeds[k]): one seed's
// output is returned as it is; several give the tables of Tables (split by
// CSVColumns when format is csv) and a Summary document.
func Summarize(seeds []uint64, per []Output, format string) (Output, error) {
	if len(per) == 1 {
		return per[0], nil
	}
	note := Note(seeds)
	ts := make([][]report.Table, len(per))
	docs := make([]any, len(per))
	for k, p := range per {
		ts[k] = p.Tables
		b, err := json.Marshal(p.Doc)
		if err != nil {
			return Output{}, fmt.Errorf("seeds: seed %d: %w", seeds[k], err)
		}
		if err := json.Unmarshal(b, &docs[k]); err != nil {
			return Output{}, fmt.Errorf("seeds: seed %d: %w", seeds[k], err)
		}
	}
	tables, err := Tables(ts, note)
	if err != nil {
		return Output{}, err
	}
	if format == "csv" {
		tables = CSVColumns(tables)
	}
	return Output{Doc: Summary{Seeds: seeds, Interval: note, Summary: Doc(docs)}, Tables: tables}, nil
}

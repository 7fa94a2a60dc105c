// Package suite runs named experiment suites: each suite is a small
// declarative value — its workload, policies, parameter grid, metrics and
// table/figure layout — that regenerates a paper's tables and figures from
// one command (tailbound tables SUITE, tailbound plot SUITE).
//
// A run evaluates the suite's grid points in parallel and collects their
// records in grid order, so a fixed seed gives byte-identical output. The
// grid can be split into shards (Shard) whose result files (File) Merge
// combines into exactly the records, hence exactly the output, of the
// unsharded run.
package suite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
)

// Param is a suite-specific setting, offered as a command-line flag
// --Name with default Default; its value reaches the suite as a string in
// Options.Params.
type Param struct {
	Name    string
	Default string
	Help    string
}

// Point is one grid point: named settings as strings (e.g. "capacity" →
// "131072"), so that it is written to and read from result files as is.
type Point map[string]string

// Record is one measured row of a grid point: a key (usually a policy
// name) and named values in the metric's units.
type Record struct {
	// Point is the index of the grid point in the suite's grid.
	Point int `json:"point"`
	// Key names the row within the point (a policy, a tier, …).
	Key string `json:"key"`
	// Values are the measured numbers, by metric name.
	Values map[string]Num `json:"values"`
}

// V returns the value of metric m (NaN when absent).
func (r Record) V(m string) float64 {
	v, ok := r.Values[m]
	if !ok {
		return math.NaN()
	}
	return float64(v)
}

// Num is a float64 whose JSON form keeps NaN and ±Inf (as the strings
// "NaN", "+Inf", "-Inf"), so records survive a result file exactly.
type Num float64

// MarshalJSON writes finite values as JSON numbers (shortest form that
// parses back to the same float64) and the rest as strings.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"NaN"`), nil
	case math.IsInf(f, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-Inf"`), nil
	}
	return []byte(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (n *Num) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch s {
	case `"NaN"`:
		*n = Num(math.NaN())
		return nil
	case `"+Inf"`:
		*n = Num(math.Inf(1))
		return nil
	case `"-Inf"`:
		*n = Num(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("value %s: not a number", s)
	}
	*n = Num(f)
	return nil
}

// Options are the settings of one run of a suite.
type Options struct {
	// Seed seeds every random draw of the suite.
	Seed uint64 `json:"seed"`
	// Small selects the suite's reduced grid (for tests and quick looks).
	Small bool `json:"small"`
	// Params are the suite's own settings by Param name; missing ones take
	// their defaults.
	Params map[string]string `json:"params"`
	// Workers is the number of grid points evaluated at once (≥ 1).
	Workers int `json:"-"`
	// Progress, when not nil, is told the grid points done of all and the
	// point last started.
	Progress progress.Func `json:"-"`
}

// Env is what a suite's functions see: the options with defaults filled
// in, and a memo of inputs shared by the grid points (a trace read once).
type Env struct {
	Options
	mu   sync.Mutex
	memo map[string]*memoEntry
}

type memoEntry struct {
	once sync.Once
	v    any
	err  error
}

// Param returns the value of the suite parameter name.
func (e *Env) Param(name string) string { return e.Params[name] }

// isDefault reports whether parameter name of suite s has its default
// value (a reduced run then shrinks it).
func (e *Env) isDefault(s *Suite, name string) bool {
	for _, p := range s.Params {
		if p.Name == name {
			return e.Params[name] == p.Default
		}
	}
	return false
}

// Memo returns f's value under key, computing it once per run even when
// grid points ask concurrently.
func (e *Env) Memo(key string, f func() (any, error)) (any, error) {
	e.mu.Lock()
	if e.memo == nil {
		e.memo = map[string]*memoEntry{}
	}
	m, ok := e.memo[key]
	if !ok {
		m = &memoEntry{}
		e.memo[key] = m
	}
	e.mu.Unlock()
	m.once.Do(func() { m.v, m.err = f() })
	return m.v, m.err
}

// Output is a suite's rendered result: its tables, the JSON document and
// its figures.
type Output struct {
	// Doc is the JSON document (format json).
	Doc any
	// Tables are rendered in the text formats.
	Tables []report.Table
}

// Suite is one named experiment: a workload, the policies it compares, a
// parameter grid, the metrics of each record and the layout of its tables
// and figures.
type Suite struct {
	// Name is the command-line name (tailbound tables NAME).
	Name string
	// Source names what the suite reproduces: paper and table/figure.
	Source string
	// Workload describes the traces or models the suite runs on.
	Workload string
	// Policies are the compared policies (or schedules, tiers).
	Policies []string
	// Metrics name the values of its records, with units.
	Metrics []string
	// Params are its own settings (flags).
	Params []Param
	// Grid lists the grid points for the options.
	Grid func(env *Env) ([]Point, error)
	// Eval measures one grid point (index i of the grid).
	Eval func(ctx context.Context, env *Env, i int, p Point) ([]Record, error)
	// Layout turns the records of every grid point, in grid order, into
	// the tables and JSON document.
	Layout func(env *Env, grid []Point, recs []Record) (Output, error)
	// Figures draws the records (nil: the suite has no figures).
	Figures func(env *Env, grid []Point, recs []Record) ([]NamedFigure, error)
}

// NamedFigure is a figure with a file stem (the plot command writes
// SUITE-STEM.EXT).
type NamedFigure struct {
	Stem string
	plots.Figure
}

// env fills in defaults and checks that every parameter is known.
func (s *Suite) env(o Options) (*Env, error) {
	params := map[string]string{}
	known := map[string]bool{}
	for _, p := range s.Params {
		params[p.Name] = p.Default
		known[p.Name] = true
	}
	for k, v := range o.Params {
		if !known[k] {
			return nil, fmt.Errorf("suite %s: unknown parameter %q", s.Name, k)
		}
		params[k] = v
	}
	o.Params = params
	if o.Workers < 1 {
		o.Workers = 1
	}
	return &Env{Options: o}, nil
}

// Shard is part i (1-based) of n of a grid: the points whose index is
// i−1 modulo n.
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 1 ≤ i ≤ n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("flag --shard: want i/n with 1 ≤ i ≤ n, got %q", s)
	}
	return Shard{i, n}, nil
}

// Has reports whether grid point idx belongs to the shard.
func (sh Shard) Has(idx int) bool { return sh.N <= 1 || idx%sh.N == sh.I-1 }

// File is a run's result file: the records of the grid points of one shard
// (or of all), with everything Merge needs to check that shards belong
// together.
type File struct {
	Suite   string  `json:"suite"`
	Options Options `json:"options"`
	Shard   Shard   `json:"shard"`
	// Grid is the whole grid (every shard writes it).
	Grid []Point `json:"grid"`
	// Points are the indices of the grid points this file measured.
	Points  []int    `json:"points"`
	Records []Record `json:"records"`
	// Digest is the hex SHA-256 of the file's JSON form without the
	// digest (encoding/json, map keys sorted), set by Run and Merge and
	// checked by Merge, so that records edited or damaged after the run
	// (a record's key renamed, a value changed) are refused rather than
	// merged into a table with blank cells.
	Digest string `json:"digest,omitempty"`
	// name is the path the file was read from (ReadFile), for errors.
	name string
}

// ComputeDigest returns the digest f should carry: the hex SHA-256 of f's
// JSON form with an empty Digest.
func (f *File) ComputeDigest() (string, error) {
	c := *f
	c.Digest = ""
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("result file digest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// label names file number i (0-based) of a merge: its path when it was
// read from one, else "file i+1".
func (f *File) label(i int) string {
	if f.name != "" {
		return f.name
	}
	return fmt.Sprintf("file %d", i+1)
}

// Run evaluates the shard's grid points of suite s (every point when sh.N
// ≤ 1), Workers at a time, and returns the result file with records in grid
// order.
func Run(ctx context.Context, s *Suite, o Options, sh Shard) (*File, error) {
	env, err := s.env(o)
	if err != nil {
		return nil, err
	}
	grid, err := s.Grid(env)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", s.Name, err)
	}
	var idx []int
	for i := range grid {
		if sh.Has(i) {
			idx = append(idx, i)
		}
	}
	out := make([][]Record, len(idx))
	errs := make([]error, len(idx))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < env.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if err := ctx.Err(); err != nil {
					errs[j] = err
					continue
				}
				mu.Lock()
				at := fmt.Sprintf("%s: grid point %d %v; points done", s.Name, idx[j], grid[idx[j]])
				env.Progress.Report(at, int64(done), int64(len(idx)))
				mu.Unlock()
				out[j], errs[j] = s.Eval(ctx, env, idx[j], grid[idx[j]])
				mu.Lock()
				done++
				env.Progress.Report(at, int64(done), int64(len(idx)))
				mu.Unlock()
			}
		}()
	}
	for j := range idx {
		work <- j
	}
	close(work)
	wg.Wait()
	f := &File{Suite: s.Name, Options: env.Options, Shard: sh, Grid: grid, Points: idx}
	f.Options.Workers, f.Options.Progress = 0, nil
	if f.Shard.N < 1 {
		f.Shard = Shard{1, 1}
	}
	for j, i := range idx {
		if errs[j] != nil {
			return nil, fmt.Errorf("suite %s: grid point %d %s: %w", s.Name, i, pointString(grid[i]), errs[j])
		}
		for _, r := range out[j] {
			r.Point = i
			f.Records = append(f.Records, r)
		}
	}
	if f.Digest, err = f.ComputeDigest(); err != nil {
		return nil, err
	}
	return f, nil
}

// pointString formats a point's settings in key order.
func pointString(p Point) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// Merge combines the result files of the shards of one run into the file
// of the unsharded run: same suite, options and grid; every grid point
// measured by exactly one file; each file's records exactly those of the
// points it lists (see checkFile) and matching its digest.
func Merge(files []*File) (*File, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("merge: no result files")
	}
	first := files[0]
	gridKey, err := json.Marshal(first.Grid)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	owner := make([]int, len(first.Grid))
	for i := range owner {
		owner[i] = -1
	}
	byPoint := make([][]Record, len(first.Grid))
	for fi, f := range files {
		if err := checkFile(f, fi); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if f.Suite != first.Suite {
			return nil, fmt.Errorf("merge: %s is suite %s, %s is %s", f.label(fi), f.Suite, first.label(0), first.Suite)
		}
		if d := optionsDiff(first.Options, f.Options); d != "" {
			return nil, fmt.Errorf("merge: %s and %s were run with different settings: %s", first.label(0), f.label(fi), d)
		}
		g, _ := json.Marshal(f.Grid)
		if string(g) != string(gridKey) {
			return nil, fmt.Errorf("merge: %s has a different grid than %s", f.label(fi), first.label(0))
		}
		for _, i := range f.Points {
			if i >= len(owner) {
				return nil, fmt.Errorf("merge: %s: grid point %d out of range", f.label(fi), i)
			}
			if owner[i] >= 0 {
				return nil, fmt.Errorf("merge: grid point %d is in %s and %s", i, files[owner[i]].label(owner[i]), f.label(fi))
			}
			owner[i] = fi
		}
		for _, r := range f.Records {
			byPoint[r.Point] = append(byPoint[r.Point], r)
		}
	}
	var missing []string
	for i, o := range owner {
		if o < 0 {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		if len(missing) == 1 {
			return nil, fmt.Errorf("merge: grid point %s is in no file (a shard is missing)", missing[0])
		}
		return nil, fmt.Errorf("merge: grid points %s are in no file (a shard is missing)", strings.Join(missing, ","))
	}
	out := &File{Suite: first.Suite, Options: first.Options, Shard: Shard{1, 1}, Grid: first.Grid}
	for i := range first.Grid {
		out.Points = append(out.Points, i)
		out.Records = append(out.Records, byPoint[i]...)
	}
	if out.Digest, err = out.ComputeDigest(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkFile checks that result file f (number fi of a merge) holds what it
// claims: its points inside its grid and its shard, each listed once; a
// record for every point it lists and of no other point; and a digest that
// matches the records, grid and options as written. Records are not
// unique by key (a characterization suite writes many records of one
// key), so a duplicated or renamed record is caught by the digest.
func checkFile(f *File, fi int) error {
	name := f.label(fi)
	if f.Shard.N < 1 || f.Shard.I < 1 || f.Shard.I > f.Shard.N {
		return fmt.Errorf("%s: field \"shard\": %d/%d is not a shard i/n with 1 ≤ i ≤ n", name, f.Shard.I, f.Shard.N)
	}
	listed := map[int]bool{}
	for _, i := range f.Points {
		if i < 0 || i >= len(f.Grid) {
			return fmt.Errorf("%s: field \"points\": grid point %d outside its grid of %d points", name, i, len(f.Grid))
		}
		if !f.Shard.Has(i) {
			return fmt.Errorf("%s: field \"points\": grid point %d is not in shard %d/%d", name, i, f.Shard.I, f.Shard.N)
		}
		if listed[i] {
			return fmt.Errorf("%s: field \"points\": grid point %d listed twice", name, i)
		}
		listed[i] = true
	}
	count := map[int]int{}
	for ri, r := range f.Records {
		if !listed[r.Point] {
			return fmt.Errorf("%s: record %d (key %q): grid point %d, which the file does not list", name, ri+1, r.Key, r.Point)
		}
		count[r.Point]++
	}
	for _, i := range f.Points {
		if count[i] == 0 {
			return fmt.Errorf("%s: field \"records\": none for grid point %d %s, which the file lists", name, i, pointString(f.Grid[i]))
		}
	}
	if f.Digest == "" {
		return fmt.Errorf("%s: field \"digest\": missing (not written by this tailbound's tables --shard; re-run the shard)", name)
	}
	want, err := f.ComputeDigest()
	if err != nil {
		return err
	}
	if f.Digest != want {
		return fmt.Errorf("%s: field \"digest\": does not match the file's records, grid and settings (edited or damaged after the run; re-run shard %d/%d)", name, f.Shard.I, f.Shard.N)
	}
	return nil
}

// optionsDiff names the first setting in which a and b differ, as the
// flags that set them ("--seed: 1 and 2"), or "" when they agree.
func optionsDiff(a, b Options) string {
	if a.Seed != b.Seed {
		return fmt.Sprintf("--seed: %d and %d", a.Seed, b.Seed)
	}
	if a.Small != b.Small {
		return fmt.Sprintf("--small: %t and %t", a.Small, b.Small)
	}
	keys := map[string]bool{}
	for k := range a.Params {
		keys[k] = true
	}
	for k := range b.Params {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	show := func(p map[string]string, k string) string {
		v, ok := p[k]
		if !ok {
			return "(unset)"
		}
		return strconv.Quote(v)
	}
	for _, k := range names {
		va, oka := a.Params[k]
		vb, okb := b.Params[k]
		if va != vb || oka != okb {
			return fmt.Sprintf("--%s: %s and %s", k, show(a.Params, k), show(b.Params, k))
		}
	}
	return ""
}

// ReadFile decodes a result file from r (named name in errors).
func ReadFile(r io.Reader, name string) (*File, error) {
	f := File{name: name}
	dec := json.NewDecoder(r)
	// tables --shard writes no field File does not have: one it does not
	// know is a file edited by hand or by another program, which the
	// digest cannot see (decoding drops it), so it is refused.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if f.Suite == "" {
		return nil, fmt.Errorf("%s: field \"suite\": missing (not a suite result file)", name)
	}
	return &f, nil
}

// Write encodes f as indented JSON.
func (f *File) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// complete reports whether f covers its whole grid.
func (f *File) complete() bool { return len(f.Points) == len(f.Grid) }

// Render lays out a complete result file with its suite and writes it in
// format (table, markdown, csv, json or latex).
func Render(w io.Writer, s *Suite, f *File, format string) error {
	if err := CheckFormat(format); err != nil {
		return err
	}
	out, err := layout(s, f)
	if err != nil {
		return err
	}
	if format == "latex" {
		return WriteLaTeX(w, out.Tables)
	}
	return report.Emit(w, format, out.Doc, out.Tables...)
}

// Layout returns the document and tables of a complete result file, as
// Render prints them.
func Layout(s *Suite, f *File) (Output, error) { return layout(s, f) }

func layout(s *Suite, f *File) (Output, error) {
	if f.Suite != s.Name {
		return Output{}, fmt.Errorf("result file is suite %s, not %s", f.Suite, s.Name)
	}
	if !f.complete() {
		return Output{}, fmt.Errorf("suite %s: result file holds shard %d/%d only; merge the shards first (tailbound merge)", s.Name, f.Shard.I, f.Shard.N)
	}
	env, err := s.env(f.Options)
	if err != nil {
		return Output{}, err
	}
	return s.Layout(env, f.Grid, f.Records)
}

// Figures draws a complete result file's figures.
func Figures(s *Suite, f *File) ([]NamedFigure, error) {
	if s.Figures == nil {
		return nil, fmt.Errorf("suite %s has no figures", s.Name)
	}
	if _, err := layout(s, f); err != nil {
		return nil, err
	}
	env, err := s.env(f.Options)
	if err != nil {
		return nil, err
	}
	return s.Figures(env, f.Grid, f.Records)
}

// formats are the output formats of a suite.
func formats() []string { return []string{"table", "markdown", "csv", "json", "latex"} }

// FormatHelp is the help text of a suite's --format flag.
const FormatHelp = "output format: table|markdown|csv|json|latex (booktabs)"

// CheckFormat returns an error naming the flag if f is not a suite format.
func CheckFormat(f string) error {
	for _, g := range formats() {
		if f == g {
			return nil
		}
	}
	return fmt.Errorf("flag --format: unknown format %q (want %s)", f, strings.Join(formats(), "|"))
}

package windows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/internal/atomicfile"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/internal/outfile"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
)

// StateFile is the name of the rounds' state file in --round-dir.
const StateFile = "state.json"

// roundState is the state file of a search in rounds: the settings it
// was started with (every step must be given the same) and the search.
type roundState struct {
	Settings map[string]string `json:"settings"`
	Search   *window.Rounds    `json:"search"`
}

// runRounds is runPercentile with --rounds K: the τ search in rounds of K
// thresholds, in one process (window.RunRounds), or as steps sharing the
// folder --round-dir: without --shard a step advances the search (reads
// the trace once and plans the first round when the folder holds no
// state; else merges the current round's shard files, decides its
// thresholds and plans the next), with --shard i/n it solves the current
// round's thresholds on shard i's windows; --slurm prints the chain of
// Slurm jobs that runs those steps.
func (c Command) runRounds(ctx context.Context, stdout io.Writer, p instance.Params) (any, []report.Table, error) {
	switch {
	case c.Rounds < 1:
		return nil, nil, option.Errorf("rounds", "want the thresholds per round, ≥ 1, got %d", c.Rounds)
	case c.MaxProbes < 0:
		return nil, nil, option.Errorf("max-probes", "must be ≥ 0, got %d", c.MaxProbes)
	case len(c.Curve) > 0 || c.TargetWidth > 0:
		return nil, nil, option.Errorf("rounds", "one window count (no --target-width or list of window counts)")
	case c.Shard != "" && c.RoundDir == "":
		return nil, nil, option.Errorf("round-dir", "--shard with --rounds needs the search's folder (--round-dir DIR), which holds the round's thresholds")
	case c.Slurm > 0 && c.RoundDir != "":
		return nil, nil, option.Errorf("round-dir", "not with --slurm (the jobs keep their state in $OUT/run-<job id>)")
	case c.Shard != "" && c.Out != "":
		return nil, nil, option.Errorf("out", "not with --rounds --shard (the shard file goes to the round's folder in --round-dir)")
	}
	if c.Slurm > 0 {
		if c.Trace == "-" {
			return nil, nil, option.Errorf("trace", "a Slurm job reads a file, not standard input")
		}
		return nil, nil, writeRoundsSlurm(stdout, c.Given, c.Slurm, c.Format, c.Out)
	}
	in, err := c.input(true)
	if err != nil {
		return nil, nil, err
	}
	mem, turns := in.mem, in.turns
	size := c.windowTurns(turns)
	open := func(limit int) func() (window.TurnReader, func(), error) {
		return func() (window.TurnReader, func(), error) { return c.turns(mem, limit) }
	}
	o := window.RoundOptions{SLO: c.sloOptions(p, size), Objective: *c.Percentile,
		PerRound: c.Rounds, MaxProbes: c.MaxProbes}
	if c.RoundDir == "" {
		r, err := window.RunRounds(ctx, open(-1), o)
		if err != nil {
			return nil, nil, err
		}
		doc, tables := roundsOutput(r)
		return doc, tables, nil
	}
	settings := map[string]string{"trace": in.label, "capacity_tokens": strconv.FormatInt(p.Capacity, 10),
		"block_size_tokens": strconv.FormatInt(p.BlockSize, 10), "objective": c.Percentile.String(),
		"window_turns": strconv.Itoa(size), "seam_turns": strconv.Itoa(c.SeamTurns), "turns": strconv.Itoa(turns),
		"thresholds_per_round": strconv.Itoa(c.Rounds), "max_probes": strconv.Itoa(c.MaxProbes)}
	c.upperSettings(settings)
	if c.LowerOverlap > 0 { // absent at 0, so the files without it are as before
		settings["lower_overlap_turns"] = strconv.Itoa(c.LowerOverlap)
	}
	st, err := c.loadState(settings)
	if err != nil {
		return nil, nil, err
	}
	if c.Shard != "" {
		if st == nil {
			return nil, nil, option.Errorf("round-dir", "%s holds no %s: start the search first (the same command without --shard)", c.RoundDir, StateFile)
		}
		return nil, nil, c.roundShard(ctx, open, p, size, turns, st, settings)
	}
	if st == nil {
		r, err := window.StartRounds(open(-1), o)
		if err != nil {
			return nil, nil, err
		}
		st = &roundState{Settings: settings, Search: r}
	} else if len(st.Search.Next) > 0 {
		if err := c.advance(st, settings); err != nil {
			return nil, nil, err
		}
	}
	if err := os.MkdirAll(c.RoundDir, 0o755); err != nil {
		return nil, nil, option.Wrap("round-dir", err)
	}
	if err := atomicfile.Write(ctx, filepath.Join(c.RoundDir, StateFile), func(w io.Writer) error { return writeJSON(w, st) }); err != nil {
		return nil, nil, option.Wrap("round-dir", err)
	}
	r := st.Search
	if len(r.Next) > 0 {
		_, err := fmt.Fprintf(stdout, "round %d: thresholds %s tokens, for the shards (--shard i/n); interval so far [%d, %d] tokens; state in %s\n",
			len(r.Done)+1, joinTaus(r.Next), r.Lower, r.Upper, filepath.Join(c.RoundDir, StateFile))
		return nil, nil, err
	}
	doc, tables := roundsOutput(r)
	if c.Out == "" {
		return doc, tables, nil
	}
	var inputs []string
	if c.Trace != "" {
		inputs = append(inputs, c.Trace)
	}
	return nil, nil, outfile.Write(ctx, "out", c.Out, stdout, func(w io.Writer) error { return report.Emit(w, c.Format, doc, tables...) }, inputs...)
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// loadState reads the state file of --round-dir (nil when there is none)
// and refuses one started with other settings, naming the first that
// differs.
func (c Command) loadState(settings map[string]string) (*roundState, error) {
	path := filepath.Join(c.RoundDir, StateFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, option.Wrap("round-dir", err)
	}
	var st roundState
	if err := json.Unmarshal(data, &st); err != nil || st.Search == nil {
		if err == nil {
			err = errors.New("no search in it")
		}
		return nil, fmt.Errorf("%s: not a state file of solve --rounds: %w", path, err)
	}
	if d := settingsDiff(st.Settings, settings); d != "" {
		return nil, fmt.Errorf("%s: the search was started with other settings: %s", path, d)
	}
	r := st.Search
	if strconv.Itoa(r.PerRound) != settings["thresholds_per_round"] || strconv.Itoa(r.MaxProbes) != settings["max_probes"] ||
		strconv.Itoa(r.Turns) != settings["turns"] || r.Lower > r.Upper || r.Lower < r.StartLower || r.Upper > r.StartUpper || window.CheckTaus(r.Next) != nil && len(r.Next) > 0 {
		return nil, fmt.Errorf("%s: the search's state disagrees with its settings or itself (interval [%d, %d], start [%d, %d], next %v): edited?", path, r.Lower, r.Upper, r.StartLower, r.StartUpper, r.Next)
	}
	return &st, nil
}

// settingsDiff names the first setting (in key order) whose value differs
// between have and want, "" when none does.
func settingsDiff(have, want map[string]string) string {
	keys := make([]string, 0, len(have)+len(want))
	for k := range have {
		keys = append(keys, k)
	}
	for k := range want {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		h, okh := have[k]
		w, okw := want[k]
		if h != w || okh != okw {
			return fmt.Sprintf("%s is %q there, %q here", k, h, w)
		}
	}
	return ""
}

// roundFolder is the folder of round n's shard files.
func (c Command) roundFolder(n int) string {
	return filepath.Join(c.RoundDir, "round-"+strconv.Itoa(n))
}

// roundSettings are the settings of round n's shard files: the search's,
// its thresholds and the round.
func roundSettings(settings map[string]string, r *window.Rounds) map[string]string {
	s := map[string]string{"round": strconv.Itoa(len(r.Done) + 1), "taus_tokens": joinTaus(r.Next)}
	for k, v := range settings {
		s[k] = v
	}
	return s
}

// roundShard solves the current round's thresholds on shard --shard's
// windows (gridShard, as solve --taus --shard) and writes its result file
// to the round's folder, shard-I.json.
func (c Command) roundShard(ctx context.Context, open func(int) func() (window.TurnReader, func(), error), p instance.Params, size, turns int, st *roundState, settings map[string]string) error {
	r := st.Search
	if len(r.Next) == 0 {
		return option.Errorf("round-dir", "the search in %s is over (no thresholds left): advance it without --shard for the result", c.RoundDir)
	}
	sh, err := suite.ParseShard(c.Shard)
	if err != nil {
		return err
	}
	c.Taus = r.Next
	f, err := c.gridShard(ctx, open, p, size, turns, sh, roundSettings(settings, r))
	if err != nil {
		return err
	}
	dir := c.roundFolder(len(r.Done) + 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return option.Wrap("round-dir", err)
	}
	return atomicfile.Write(ctx, filepath.Join(dir, fmt.Sprintf("shard-%d.json", sh.I)), f.Write)
}

// advance merges the current round's shard files (suite.Merge's checks:
// digests, settings, every window solved once), checks they solved this
// round's thresholds with the search's settings, and advances the search.
func (c Command) advance(st *roundState, settings map[string]string) error {
	r := st.Search
	dir := c.roundFolder(len(r.Done) + 1)
	paths, err := filepath.Glob(filepath.Join(dir, "shard-*.json"))
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return fmt.Errorf("%s: no shard files of round %d (thresholds %s tokens): run the shards first (--shard i/n)", dir, len(r.Done)+1, joinTaus(r.Next))
	}
	f, err := suite.ReadFiles(paths)
	if err != nil {
		return err
	}
	if f.Suite != Name {
		return fmt.Errorf("%s: the shard files are %s, not %s", dir, f.Suite, Name)
	}
	if len(f.Points) != len(f.Grid) {
		return fmt.Errorf("%s: the shard files solve %d of the %d windows (a shard missing?)", dir, len(f.Points), len(f.Grid))
	}
	if d := settingsDiff(f.Options.Params, roundSettings(settings, r)); d != "" {
		return fmt.Errorf("%s: the shard files are not this round's: %s", dir, d)
	}
	size, _ := strconv.Atoi(f.Options.Params["window_turns"])
	back, err := overlapSetting(f, size)
	if err != nil {
		return err
	}
	figs, _, err := gridFigures(f, back > 0)
	if err != nil {
		return err
	}
	return r.Advance(figs)
}

// roundsOutput is the document and tables of a search in rounds r.
func roundsOutput(r *window.Rounds) (any, []report.Table) {
	t := report.Table{Title: fmt.Sprintf("windowed bounds on the lowest %s of uncached tokens (rank %d of %d turns): %d windows of %d steps, seams ±%d steps, %d rounds of at most %d thresholds, %d probes%s%s",
		r.Objective, r.Rank, r.Turns, r.Windows, r.WindowTurns, r.SeamTurns, len(r.Done), r.PerRound, r.Probes(), pctOverlapTitle(r.LowerOverlap), upperTitle(r.UpperMode)),
		Header: []string{"quantity", "value"}}
	addPercentileRows(&t, r.PercentileInterval, r.StartLower, r.StartUpper)
	pt := report.Table{Title: fmt.Sprintf("rounds (windowed SLO bounds at τ, summed over every window; at most %d turns may exceed the percentile)", r.MaxExceeding),
		Header: []string{"round", "τ (tokens)", "lower (turns)", "upper (turns)", "decided"}}
	for i, d := range r.Done {
		for _, pr := range d {
			pt.Add(report.CellI(int64(i+1)), report.CellI(pr.Tau), report.CellI(int64(pr.Lower)), report.CellI(int64(pr.Upper)), report.CellText(pr.Decided))
		}
	}
	return r, []report.Table{t, pt}
}

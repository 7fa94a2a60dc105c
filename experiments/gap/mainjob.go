package gap

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/seeds"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// Simulate is 'tailbound simulate': blocksim.Simulate, and, when c replays
// the embedded workload once at the turn level (no --trace, --capacities
// or --schedule; --seeds naming one seed at most) in a format for people (table or markdown), one
// more table at the end: the exact hindsight TEL optimum of the same
// workload and settings (min-cost flow, compact formulation) and each
// policy's TEL as a multiple of it. The JSON and CSV outputs are
// blocksim.Simulate's ('tailbound gap' has the optimum in JSON).
func Simulate(ctx context.Context, c *blocksim.Command) (any, []report.Table, error) {
	doc, tables, err := blocksim.Simulate(c)
	if err != nil || c.Level != "turn" || c.Trace != "" || c.Capacities != "" ||
		len(c.Schedules) > 0 || (c.Format != "table" && c.Format != "markdown") {
		return doc, tables, err
	}
	seed := c.Seed
	if c.Seeds != "" { // --seeds 1 is the single run, and prints as it
		list, err := seeds.Parse(c.Seeds, c.Seed)
		if err != nil || len(list) != 1 {
			return doc, tables, err
		}
		seed = list[0]
	}
	wl, _, err := c.Workload.Params(false)
	if err != nil {
		return nil, nil, err
	}
	t, err := OptimumTable(ctx, doc, wl, seed)
	if err != nil {
		return nil, nil, err
	}
	tail, err := TailCommandsTable(doc, seed)
	if err != nil {
		return nil, nil, err
	}
	return doc, append(tables, t, tail), nil
}

// TailCommandsTable names, for the embedded workload of seed under the
// settings of doc (simulate's JSON document), the commands that bound the
// best achievable SLO violations and P90 in hindsight. The main job does
// not solve them itself: the replay and the TEL optimum already take about
// 3 s of CPU, and the SLO interval (LP, greedy and large-neighbourhood
// search) about 8 s more, the P90 search over a dozen SLO problems about
// a minute (docs/tail-bounds.md, issue 32).
func TailCommandsTable(doc any, seed uint64) (report.Table, error) {
	var d struct {
		Settings struct {
			Capacity  int64   `json:"capacity_tokens"`
			BlockSize int64   `json:"block_size_tokens"`
			Xi        float64 `json:"xi_tokens"`
			Forced    bool    `json:"forced"`
			SLOMs     float64 `json:"slo_ms"`
			AlphaMs   float64 `json:"alpha_ms_per_token"`
			BetaMs    float64 `json:"beta_ms"`
		} `json:"settings"`
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return report.Table{}, fmt.Errorf("tail commands: %w", err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return report.Table{}, fmt.Errorf("tail commands: %w", err)
	}
	s := d.Settings
	common := fmt.Sprintf("tailbound gap --seed %d --capacities %d --block-size %d --xis %s --forced=%v --policies lru,tlru,to-belady",
		seed, s.Capacity, s.BlockSize, report.F(s.Xi, 0), s.Forced)
	slo := fmt.Sprintf("%s --objective slo --slo-ms %s", common, report.F(s.SLOMs, 0))
	if s.AlphaMs != 0.1 || s.BetaMs != 10 { // not gap's defaults
		slo += fmt.Sprintf(" --alpha-ms %v --beta-ms %v", s.AlphaMs, s.BetaMs)
	}
	t := report.Table{
		Title:  "the best achievable SLO violations and P90 in hindsight are certified intervals that take longer to bound (about 10 s and a minute); each command prints every policy against its interval",
		Header: []string{"metric", "command"},
	}
	t.Add(report.CellText(fmt.Sprintf("SLO violations (SLO %s ms)", report.F(s.SLOMs, 0))),
		report.CellText(slo))
	t.Add(report.CellText("P90 TTFT"), report.CellText(common+" --objective p90"))
	return t, nil
}

// simDoc is the part of simulate's JSON document OptimumTable reads
// (SPEC §9: policies[].name, tel_tokens; the settings in tokens).
type simDoc struct {
	Settings struct {
		Capacity  int64   `json:"capacity_tokens"`
		BlockSize int64   `json:"block_size_tokens"`
		Xi        float64 `json:"xi_tokens"`
		Forced    bool    `json:"forced"`
		AlphaMs   float64 `json:"alpha_ms_per_token"`
	} `json:"settings"`
	Policies []struct {
		Name      string  `json:"name"`
		TELTokens float64 `json:"tel_tokens"`
	} `json:"policies"`
}

// OptimumTable solves the hindsight TEL optimum of the birth–death
// workload wl of seed under the settings of doc (simulate's JSON document
// of that workload) and returns a table of each policy of doc against it:
// its TEL in tokens, TEL/TEL_opt, and the relative gap (as Row.RelGapText).
func OptimumTable(ctx context.Context, doc any, wl birthdeath.Params, seed uint64) (report.Table, error) {
	var d simDoc
	b, err := json.Marshal(doc)
	if err != nil {
		return report.Table{}, fmt.Errorf("hindsight optimum: %w", err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return report.Table{}, fmt.Errorf("hindsight optimum: %w", err)
	}
	tr, err := birthdeath.Trace(wl, seed)
	if err != nil {
		return report.Table{}, err
	}
	s := d.Settings
	in, err := lp.NewInstance(tr, instance.Params{Capacity: s.Capacity, BlockSize: s.BlockSize, Xi: s.Xi, Forced: s.Forced})
	if err != nil {
		return report.Table{}, err
	}
	res, err := solvers.Solve(ctx, in, lp.Compact, solvers.Flow, false, lp.Options{})
	if err != nil {
		return report.Table{}, err
	}
	if res.Status != lp.Optimal {
		return report.Table{}, fmt.Errorf("hindsight optimum: solver %s: %s (%s)", res.Solver, res.Status, res.Detail)
	}
	opt := res.TEL
	t := report.Table{
		Title: fmt.Sprintf("each policy against the exact hindsight optimum TEL_opt = %s tokens (%s ms): the least TEL "+
			"any cache schedule reaches on this workload, knowing the future (min-cost flow, proven)",
			report.F(opt, 0), report.F(opt*s.AlphaMs, 1)),
		Header: []string{"policy", "TEL (tokens)", "TEL / TEL_opt", "gap (relative)"},
	}
	for _, p := range d.Policies {
		r := Row{TELOptTokens: opt, TELTokens: p.TELTokens}
		ratio := report.CellNone("—")
		switch {
		case opt > 0:
			g := (p.TELTokens - opt) / opt
			r.RelGap = &g
			ratio = report.CellAs(fmt.Sprintf("%.2f×", p.TELTokens/opt), p.TELTokens/opt)
		case p.TELTokens == 0:
			r.OptZero = "both zero"
		default:
			r.OptZero = "infinite"
		}
		gap := report.CellNone(r.RelGapText())
		if r.RelGap != nil {
			gap = report.CellFracAs(r.RelGapText(), *r.RelGap)
		}
		t.Add(report.CellText(p.Name), report.CellF(p.TELTokens, 0), ratio, gap)
	}
	return t, nil
}

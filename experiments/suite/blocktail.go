package suite

import (
	"context"
	"fmt"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
)

// tailKey is the record key of the hindsight tail optimum's interval.
const tailKey = "tail-optimum"

// tailParam is the block-policies suite's switch of the hindsight TEL and
// SLO bounds (experiments/blocktail): lp (LP relaxation by CLP where
// built, else gonum — minutes per trace), none, or auto (the default): lp
// in a full run, none in a small one.
func tailParam() Param {
	return Param{"tail-bounds", "auto", "native blocks: hindsight TEL and SLO optimum bounds per capacity, lp|none|auto (auto: lp, none when small)"}
}

// tailOn reports whether the suite bounds the tail optimum.
func tailOn(env *Env) (bool, error) {
	v := env.Param("tail-bounds")
	if v == "auto" {
		v = "lp"
		if env.Small {
			v = "none"
		}
	}
	switch v {
	case "lp":
		return true, nil
	case "none":
		return false, nil
	}
	return false, fmt.Errorf("flag --tail-bounds: want lp or none, got %q", v)
}

// tailRecords bounds the TEL (ξ from xiMs) and SLO (latency.DefaultSLOMs)
// optimum of the Mooncake trace at path at every capacity: one record per
// capacity, TEL in seconds.
func tailRecords(ctx context.Context, path string, caps []int64, xiMs float64) ([]Record, error) {
	tr, err := blocktail.Load(path, "mooncake", 0)
	if err != nil {
		return nil, err
	}
	lat := latency.Default()
	s, err := objective.DefaultSLOSettings().Resolve(lat, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, c := range caps {
		v := map[string]Num{"capacity": Num(c)}
		for _, k := range []prefixtail.Kind{prefixtail.TEL, prefixtail.SLO} {
			// CLP with coin; without it no lower-bound solve (the
			// capacity-free bound), as before the Lagrangian bound became
			// blocktail's pure-Go default: it takes minutes per point on
			// these traces, where this suite takes seconds
			// (docs/block-tail-bounds.md has its figures).
			lpSolver := "none"
			if solvers.Coin() {
				lpSolver = "clp"
			}
			cfg := blocktail.Config{Objective: prefixtail.Objective{Kind: k, XiTokens: lat.XiTokens(xiMs), SLOTokens: float64(s)}, LPSolver: lpSolver, IPSolver: "none"}
			pt, err := blocktail.BoundOne(ctx, tr, c, cfg)
			if err != nil {
				return nil, err
			}
			proven, fromLP := Num(0), Num(0)
			if pt.Proven {
				proven = 1
			}
			if pt.LowerFrom != "capacity-free" {
				fromLP = 1
			}
			if k == prefixtail.TEL {
				ms := lat.AlphaMs / 1000
				v["tel_lo_s"], v["tel_hi_s"], v["tel_proven"], v["tel_lo_lp"] = Num(pt.Lower*ms), Num(pt.Upper*ms), proven, fromLP
			} else {
				v["slo_lo"], v["slo_hi"], v["slo_proven"], v["slo_lo_lp"] = Num(pt.Lower), Num(pt.Upper), proven, fromLP
			}
		}
		recs = append(recs, Record{Key: tailKey, Values: v})
	}
	return recs, nil
}

// tailTable is the table of one point's tail intervals beside every
// policy's TEL and violations.
func tailTable(title string, tail []Record, names []string, cell map[string]map[int64]Record) report.Table {
	t := report.Table{Title: title + ": hindsight TEL (s) and SLO-violation optimum, [lower, upper] (lp/prefixtail), and each policy's value; " +
		"lower from: the LP relaxation (lp), or where no LP was solved (pure Go: the suite asks for none; solve --level block bounds with the Lagrangian) the cost under a cache that never evicts (no-evict)",
		Header: append([]string{"capacity (tokens) — metric", "optimum lower", "optimum upper", "lower from"}, names...)}
	from := func(lp float64) report.Cell {
		if lp == 1 {
			return report.CellText("lp")
		}
		return report.CellText("no-evict")
	}
	for _, r := range tail {
		c := int64(r.V("capacity"))
		line := []report.Cell{report.CellText(fmt.Sprintf("%d — TEL (s)", c)), report.CellF(r.V("tel_lo_s"), 1), report.CellF(r.V("tel_hi_s"), 1), from(r.V("tel_lo_lp"))}
		for _, n := range names {
			line = append(line, report.CellF(cell[n][c].V("tel_s"), 1))
		}
		t.Add(line...)
		line = []report.Cell{report.CellText(fmt.Sprintf("%d — SLO violations", c)), report.CellF(r.V("slo_lo"), 1), report.CellF(r.V("slo_hi"), 0), from(r.V("slo_lo_lp"))}
		for _, n := range names {
			line = append(line, report.CellF(cell[n][c].V("slo"), 0))
		}
		t.Add(line...)
	}
	return t
}

// tailFigure is the TEL-against-capacity figure with the optimum's band:
// every policy's curve of tel (without the ideal's flat line) and the
// interval's lower and upper ends.
func tailFigure(tel plots.Figure, tail []Record) plots.Figure {
	f := tel
	f.Title += " against the hindsight optimum"
	f.Series = nil
	for _, s := range tel.Series {
		if s.Name != "ideal (∞ cache)" {
			f.Series = append(f.Series, s)
		}
	}
	lo := plots.Series{Name: "optimum: lower bound"}
	hi := plots.Series{Name: "optimum: upper bound"}
	for _, r := range tail {
		lo.X, lo.Y = append(lo.X, r.V("capacity")), append(lo.Y, r.V("tel_lo_s"))
		hi.X, hi.Y = append(hi.X, r.V("capacity")), append(hi.Y, r.V("tel_hi_s"))
	}
	f.Series = append(f.Series, lo, hi)
	return f
}

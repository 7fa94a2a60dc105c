package suite

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tailbound/tailbound/experiments/gap"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/objective"
	"github.com/tailbound/tailbound/models/trace"
)

// boundKey is the grid-point setting of a hindsight tail-bound point (its
// value is the objective: slo, p90, …); such a point has no ξ.
const boundKey = "bound"

// optKey is the record key of a tail-bound point's interval.
const optKey = "hindsight-optimum"

// turnBoundParam is the tail-latency and optimality-gap suites' switch of
// the hindsight bounds on SLO violations and percentiles (lp/slo through
// gap.SolveTail).
func turnBoundParam() Param {
	return Param{"tail-bounds", "auto", "hindsight bounds on SLO violations and P90/P95/P99 (lp/slo): flow (LP bound and a schedule: an interval, minutes per objective at full size) | ip (also the 0/1 program of open components, CBC with -tags coin else gonum, 10 s each) | none | auto (flow, none when --small)"}
}

// turnBoundTimeParam is the same suites' time limit of each hindsight
// tail bound.
func turnBoundTimeParam() Param {
	return Param{"tail-time-limit", "0", "time limit of each hindsight tail bound, seconds (0: none, the deterministic interval; with one the interval narrows by the stretches and the wide search of docs/tail-bounds.md, and depends on the machine; else 0.001 to 10^6)"}
}

// turnBoundTimeLimit parses the tail-time-limit parameter (0: none).
func turnBoundTimeLimit(env *Env) (time.Duration, error) {
	v, err := floatParam(env, "tail-time-limit")
	if err != nil {
		return 0, err
	}
	return option.TimeLimit("tail-time-limit", v)
}

// turnBoundSolver returns the gap.TailSpec solver of the tail-bounds
// parameter, or "" when the bounds are off.
func turnBoundSolver(env *Env) (string, error) {
	v := env.Param("tail-bounds")
	if v == "auto" {
		v = "flow"
		if env.Small {
			v = "none"
		}
	}
	switch v {
	case "flow":
		return "flow", nil
	case "ip":
		return "auto", nil
	case "none":
		return "", nil
	}
	return "", fmt.Errorf("flag --tail-bounds: want flow, ip, none or auto, got %q", v)
}

// turnBoundObjectives parses the tail-objectives parameter (a comma list
// of slo and pQ).
func turnBoundObjectives(env *Env) ([]objective.Objective, error) {
	var out []objective.Objective
	for _, f := range strings.Split(env.Param("tail-objectives"), ",") {
		o, err := objective.Parse(f)
		if err != nil || o.Kind == objective.TEL {
			return nil, fmt.Errorf("flag --tail-objectives: want slo or pQ, got %q", f)
		}
		out = append(out, o)
	}
	return out, nil
}

// turnBound bounds objective obj (slo at sloMs, or a percentile) on trace
// tr at capacity c within limit (0: none): one record with lo, hi (violations, or uncached
// tokens), lo_ms and hi_ms (pQ: their TTFT), proven (1 or 0) and turns.
func turnBound(ctx context.Context, tr *trace.Trace, p instance.Params, m latency.Model, sloMs float64, obj objective.Objective,
	solver string, limit time.Duration) (Record, error) {
	in, err := lp.NewInstance(tr, instance.Params{Capacity: p.Capacity, BlockSize: p.BlockSize, Forced: p.Forced})
	if err != nil {
		return Record{}, err
	}
	s, err := (objective.SLOSettings{SLOMs: sloMs, SLOTokens: math.NaN()}).Resolve(m, func(string) bool { return false })
	if err != nil {
		return Record{}, err
	}
	rep, err := gap.SolveTail(ctx, in, gap.TailSpec{Objective: obj, SLOTokens: s, Solver: solver, Model: m, TimeLimit: limit})
	if err != nil {
		return Record{}, fmt.Errorf("%s at C = %d tokens: %w", obj, p.Capacity, err)
	}
	if rep.ScheduleCheck != "ok" {
		return Record{}, fmt.Errorf("%s at C = %d tokens: the bound's schedule is not admissible: %s (a bug)", obj, p.Capacity, rep.ScheduleCheck)
	}
	proven := Num(0)
	if rep.Proven {
		proven = 1
	}
	v := map[string]Num{"lo": Num(rep.LowerBound), "hi": Num(rep.UpperBound), "proven": proven, "turns": Num(in.K()),
		"slo_tokens": Num(s), "time_limit_s": Num(rep.TimeLimit.Seconds())}
	if obj.Kind == objective.Percentile {
		v["lo_ms"], v["hi_ms"] = Num(m.TTFTMs(float64(rep.LowerBound))), Num(m.TTFTMs(float64(rep.UpperBound)))
	}
	return Record{Key: optKey, Values: v}, nil
}

// boundLimitNote is what a bound table's title adds when its bound
// records (optKey) were solved within a time limit (time_limit_s > 0):
// such an interval depends on the machine and its load.
func boundLimitNote(recs []Record) string {
	var most float64
	for _, r := range recs {
		if v := r.V("time_limit_s"); r.Key == optKey && v > most { // NaN: a record without one
			most = v
		}
	}
	if !(most > 0) {
		return ""
	}
	return fmt.Sprintf("; each interval within a time limit of %s s (it depends on the machine and its load)", strconv.FormatFloat(most, 'g', -1, 64))
}

// Reach is "T-LRU reaches X of a possible Y": a policy's improvement over
// a baseline beside the best improvement any schedule could make, an
// interval since the optimum is. All in percent of the baseline's value;
// NaN where the baseline is 0.
type Reach struct {
	// Gain is (base − value)/base.
	Gain float64
	// PossibleLo and PossibleHi bound the best achievable gain:
	// (base − upper)/base ≤ best ≤ (base − lower)/base.
	PossibleLo, PossibleHi float64
	// ShareLo ≤ ShareHi bound Gain / best gain (NaN when the best gain
	// can be 0, i.e. PossibleLo ≤ 0; negative when the policy is worse
	// than the baseline).
	ShareLo, ShareHi float64
}

// ReachOf computes Reach for a policy's value against baseline base and
// the optimum's interval [lo, hi] (same units: ms or violations).
func ReachOf(base, value, lo, hi float64) Reach {
	r := Reach{Gain: math.NaN(), PossibleLo: math.NaN(), PossibleHi: math.NaN(), ShareLo: math.NaN(), ShareHi: math.NaN()}
	if base == 0 {
		return r
	}
	r.Gain = 100 * (base - value) / base
	r.PossibleLo, r.PossibleHi = 100*(base-hi)/base, 100*(base-lo)/base
	if r.PossibleLo > 0 {
		a, b := 100*r.Gain/r.PossibleHi, 100*r.Gain/r.PossibleLo
		r.ShareLo, r.ShareHi = min(a, b), max(a, b)
	}
	return r
}

// reachHeader is the header of a reach table after its leading columns.
var reachHeader = []string{"LRU", "T-LRU", "optimum lower", "optimum upper", "proven", "T-LRU gain (%)",
	"possible gain, lower (%)", "possible gain, upper (%)", "share reached, lower (%)", "share reached, upper (%)"}

// reachCells are one reach row's cells: LRU, T-LRU, the interval (prec
// decimals), whether it is proven, and Reach.
func reachCells(lru, tlru, lo, hi float64, proven bool, prec int) []report.Cell {
	r := ReachOf(lru, tlru, lo, hi)
	p := "no (interval)"
	if proven {
		p = "yes"
	}
	return []report.Cell{report.CellF(lru, prec), report.CellF(tlru, prec), report.CellF(lo, prec), report.CellF(hi, prec),
		report.CellText(p), report.CellF(r.Gain, 1), report.CellF(r.PossibleLo, 1), report.CellF(r.PossibleHi, 1),
		report.CellF(r.ShareLo, 1), report.CellF(r.ShareHi, 1)}
}

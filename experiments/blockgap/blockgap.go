// Package blockgap measures block-level (prefix-cache) policies against the
// hindsight optimum of block hits: for each capacity it replays every
// policy and the hindsight policy of belady/prefix (exact: furthest next
// use over chains, see lp/prefix for the proof) through blocksim, and
// optionally solves the integer program of lp/prefix (Build; CBC where
// small) and its LP relaxation (the merged BuildLP, same optimum, CLP at
// scale), which bound the optimum's misses from below. It reports each policy's
// misses against the bound interval [LP or IP, hindsight policy] and checks
// LP ≤ IP ≤ hindsight ≤ every policy.
package blockgap

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"math"
	"time"

	bprefix "github.com/tailbound/tailbound/belady/prefix"
	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/lp"
	lprefix "github.com/tailbound/tailbound/lp/prefix"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// HindsightName is the name of the hindsight policy's rows.
const HindsightName = "hindsight-belady"

// Config is a block-level gap sweep.
type Config struct {
	// Capacities are cache sizes in tokens, multiples of the block size.
	Capacities []int64
	// Policies are the block policies to measure.
	Policies []prefixcache.Entry
	// LPSolver solves the LP relaxation: a backend name of lp/solvers
	// (clp, gonum), "auto" (clp when built with coin, else gonum) or
	// "none" to skip it.
	LPSolver string
	// IPSolver solves the integer program: cbc, gonum, "auto" (cbc when
	// built with coin, else gonum) or "none".
	IPSolver string
	// TimeLimit bounds each solve (0: none).
	TimeLimit time.Duration
	// Replay holds the replay settings (block size, ξ, latency model, …).
	Replay blocksim.Options
	// Progress, when not nil, is told which solve runs.
	Progress progress.Func
}

// Row is one policy at one capacity. Misses and hits count block
// references (a chain's blocks beyond / within its hit prefix).
type Row struct {
	CapacityTokens int64   `json:"capacity_tokens"`
	CapacityBlocks int     `json:"capacity_blocks"`
	Policy         string  `json:"policy"`
	MissBlocks     int64   `json:"miss_blocks"`
	HitBlocks      int64   `json:"hit_blocks"`
	BlockHitRatio  float64 `json:"block_hit_ratio"`
	// GapBlocks is the policy's misses minus the hindsight optimum's;
	// RelGap is GapBlocks over the optimum's misses.
	GapBlocks int64   `json:"gap_blocks"`
	RelGap    float64 `json:"rel_gap"`
	// TELMs and MeanTTFTMs are the replay's latency figures, P90Ms its
	// 90th-percentile TTFT and SLOViolations its requests with TTFT above
	// the SLO.
	TELMs         float64 `json:"tel_ms"`
	MeanTTFTMs    float64 `json:"mean_ttft_ms"`
	P90Ms         float64 `json:"p90_ms"`
	SLOViolations int64   `json:"slo_violations"`
}

// Bound is the bound interval on the optimum's misses at one capacity.
type Bound struct {
	CapacityTokens int64 `json:"capacity_tokens"`
	CapacityBlocks int   `json:"capacity_blocks"`
	RefBlocks      int64 `json:"ref_blocks"`
	// HindsightMissBlocks is the hindsight policy's misses: feasible, so an
	// upper bound on the optimum's (and, by the theorem of lp/prefix,
	// equal to it).
	HindsightMissBlocks int64 `json:"hindsight_miss_blocks"`
	// LP and IP are the solves, nil when skipped.
	LP *Solve `json:"lp,omitempty"`
	IP *Solve `json:"ip,omitempty"`
	// LowerMissBlocks is the best lower bound: the IP's misses when it
	// solved to optimality, else the LP's, else NaN (no solve); it is
	// encoded as null in JSON when NaN.
	LowerMissBlocks *float64 `json:"lower_miss_blocks"`
	// WidthBlocks is HindsightMissBlocks − LowerMissBlocks (null without a
	// lower bound).
	WidthBlocks *float64 `json:"width_blocks"`
	// OrderHolds reports LP ≤ IP ≤ hindsight ≤ every policy, in misses,
	// over whichever of them were computed (to within 1e-6 blocks).
	OrderHolds bool `json:"order_holds"`
}

// Solve is one LP or IP solve.
type Solve struct {
	Solver     string  `json:"solver"`
	Status     string  `json:"status"`
	MissBlocks float64 `json:"miss_blocks"`
	Integral   bool    `json:"integral"`
	Seconds    float64 `json:"seconds"`
	Columns    int     `json:"columns"`
	Rows       int     `json:"rows"`
}

const tol = 1e-6

// Run replays s under every policy and the hindsight policy at every
// capacity and computes the bounds. It returns the rows (capacities
// outermost, the hindsight policy first within each) and one Bound per
// capacity.
func Run(ctx context.Context, s *blocktrace.Stream, cfg Config) ([]Row, []Bound, error) {
	block := int64(s.BlockTokens)
	if block < 1 {
		return nil, nil, fmt.Errorf("block size %d tokens must be ≥ 1", block)
	}
	cfg.Replay.BlockSize = block
	reqs, err := prefixcache.InternAll(s.Requests)
	if err != nil {
		return nil, nil, err
	}
	fut, err := bprefix.NewFuture(reqs)
	if err != nil {
		return nil, nil, err
	}
	longest := 0
	for _, q := range reqs {
		longest = max(longest, len(q.Blocks))
	}
	entries := append([]prefixcache.Entry{{Name: HindsightName, New: bprefix.NewBelady(fut)}}, cfg.Policies...)
	for _, c := range cfg.Capacities {
		if c < 0 || c%block != 0 {
			return nil, nil, fmt.Errorf("capacity %d tokens must be ≥ 0 and a multiple of the block size %d tokens", c, block)
		}
		if int(c/block) < longest {
			return nil, nil, fmt.Errorf("capacity %d tokens (%d blocks) is below the longest chain, %d blocks: the bound needs every chain to fit", c, c/block, longest)
		}
	}
	results, _, err := blocksim.Replay(blocktrace.StreamSource(s), blocksim.SweepRuns(entries, cfg.Capacities), cfg.Replay)
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	var bounds []Bound
	for i, c := range cfg.Capacities {
		rs := results[i*len(entries) : (i+1)*len(entries)]
		opt := rs[0].RefBlocks - rs[0].HitBlocks
		b := Bound{CapacityTokens: c, CapacityBlocks: rs[0].CapacityBlocks, RefBlocks: rs[0].RefBlocks, HindsightMissBlocks: opt}
		for _, r := range rs {
			miss := r.RefBlocks - r.HitBlocks
			row := Row{CapacityTokens: c, CapacityBlocks: r.CapacityBlocks, Policy: r.Name, MissBlocks: miss, HitBlocks: r.HitBlocks,
				BlockHitRatio: r.BlockHitRatio, GapBlocks: miss - opt, TELMs: r.Summary.TELMs, MeanTTFTMs: r.Summary.MeanTTFTMs,
				P90Ms: r.Summary.P90, SLOViolations: r.Summary.Violations}
			if opt > 0 {
				row.RelGap = float64(miss-opt) / float64(opt)
			}
			rows = append(rows, row)
		}
		if cfg.LPSolver != "none" {
			m, err := lprefix.BuildLP(reqs, b.CapacityBlocks)
			if err != nil {
				return nil, nil, fmt.Errorf("capacity %d tokens: %w", c, err)
			}
			if b.LP, err = solve(ctx, m, cfg.LPSolver, true, cfg); err != nil {
				return nil, nil, fmt.Errorf("capacity %d tokens, LP: %w", c, err)
			}
		}
		if cfg.IPSolver != "none" {
			m, err := lprefix.Build(reqs, b.CapacityBlocks)
			if err != nil {
				return nil, nil, fmt.Errorf("capacity %d tokens: %w", c, err)
			}
			if b.IP, err = solve(ctx, m, cfg.IPSolver, false, cfg); err != nil {
				return nil, nil, fmt.Errorf("capacity %d tokens, IP: %w", c, err)
			}
		}
		b.finish(rows[len(rows)-len(rs):])
		bounds = append(bounds, b)
	}
	return rows, bounds, nil
}

// finish sets the lower bound, the width and the order check.
func (b *Bound) finish(rows []Row) {
	lower := math.NaN()
	if b.LP != nil && b.LP.Status == lp.Optimal.String() {
		lower = b.LP.MissBlocks
	}
	if b.IP != nil && b.IP.Status == lp.Optimal.String() {
		lower = b.IP.MissBlocks
	}
	if !math.IsNaN(lower) {
		w := float64(b.HindsightMissBlocks) - lower
		if math.Abs(w) < tol*max(1, lower) {
			w = 0 // a solver's rounding, not a width
		}
		b.LowerMissBlocks, b.WidthBlocks = &lower, &w
	}
	ok := true
	chain := []float64{}
	if b.LP != nil && b.LP.Status == lp.Optimal.String() {
		chain = append(chain, b.LP.MissBlocks)
	}
	if b.IP != nil && b.IP.Status == lp.Optimal.String() {
		chain = append(chain, b.IP.MissBlocks)
	}
	chain = append(chain, float64(b.HindsightMissBlocks))
	for i := 1; i < len(chain); i++ {
		ok = ok && chain[i-1] <= chain[i]+tol
	}
	for _, r := range rows {
		ok = ok && float64(b.HindsightMissBlocks) <= float64(r.MissBlocks)+tol
	}
	b.OrderHolds = ok
}

// solve runs one solve; nil for solver "none".
func solve(ctx context.Context, m *lprefix.Model, name string, relax bool, cfg Config) (*Solve, error) {
	if name == "none" {
		return nil, nil
	}
	if name == "" || name == solvers.Auto {
		switch {
		case solvers.Coin() && relax:
			name = "clp"
		case solvers.Coin():
			name = "cbc"
		default:
			name = "gonum"
		}
	}
	be, err := solvers.Backend(name)
	if err != nil {
		return nil, err
	}
	if cfg.Progress != nil {
		kind := "integer program"
		if relax {
			kind = "LP relaxation"
		}
		cfg.Progress.Report(fmt.Sprintf("%d blocks: %s by %s (%d columns, %d rows)", m.CapacityBlocks, kind, name, m.Problem.NumCols, m.Problem.NumRows), 0, 0)
	}
	start := time.Now()
	res, err := m.Solve(ctx, be, relax, lp.Options{TimeLimit: cfg.TimeLimit})
	if err != nil {
		return nil, err
	}
	d := time.Since(start)
	return &Solve{Solver: name, Status: res.Status.String(), MissBlocks: res.MissBlocks, Integral: res.Integral,
		Seconds: d.Seconds(), Columns: m.Problem.NumCols, Rows: m.Problem.NumRows}, nil
}

// Package blocktail measures block-level (prefix-cache) policies against
// the hindsight optimum of a tail metric — TEL or SLO violations — whose
// bounds lp/prefixtail computes: for each capacity it replays every policy
// through blocksim (simulate --level block) and bounds the optimum by the
// integer program (CBC where asked), its LP relaxation (CLP at scale) and
// replayed hindsight schedules. It reports each policy's TEL (tokens) and
// violations beside the interval and checks that every policy's value is
// at least the lower bound.
package blocktail

import (
	"context"
	"fmt"
	"github.com/tailbound/tailbound/internal/progress"
	"math"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/prefixtail"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Config is one block-level tail sweep.
type Config struct {
	// Capacities are cache sizes in tokens, multiples of the block size.
	Capacities []int64
	// Objective is what is bounded: prefixtail.TEL with XiTokens, or
	// prefixtail.SLO with SLOTokens (both thresholds are used for the
	// policies' figures).
	Objective prefixtail.Objective
	// PercentileQ, when > 0, bounds the Q-th nearest-rank percentile of
	// uncached tokens instead (prefixtail.Percentile; Q in percent), and
	// Objective is ignored. With policies, Q must be 50, 90, 95 or 99
	// (the percentiles blocksim reports).
	PercentileQ float64
	// XiTokens is ξ, tokens: the TEL threshold of the policies' TEL (and of
	// the tail-aware policies); SLOTokens the SLO s, tokens (violation:
	// b > s).
	XiTokens  float64
	SLOTokens int64
	// Model is the latency model (TEL in ms, the SLO in ms).
	Model latency.Model
	// Policies are the block policies to measure (none: bounds only).
	Policies []prefixcache.Entry
	// LPSolver computes the lower bound that scales: clp or gonum (the LP
	// relaxation), lagrangian (prefixtail's Lagrangian bound: min-cost
	// flows, no LP solver), auto (clp when built with coin, else
	// lagrangian) or none. IPSolver the integer program: cbc, gonum, auto
	// (cbc with coin, else gonum) or none.
	LPSolver, IPSolver string
	// TimeLimit bounds each solve (0: none).
	TimeLimit time.Duration
	// Progress, when not nil, is told which solve runs.
	Progress progress.Func
}

// Point is the interval at one capacity.
type Point struct {
	CapacityTokens int64 `json:"capacity_tokens"`
	CapacityBlocks int   `json:"capacity_blocks"`
	prefixtail.Bounds
	// Width is Upper − Lower; RelWidth is Width over Upper (0 when Upper
	// is 0).
	Width    float64 `json:"width"`
	RelWidth float64 `json:"rel_width"`
	// Seconds is the wall time of the bounds at this capacity (replays and
	// solves).
	Seconds float64 `json:"bounds_seconds"`
	// OrderHolds reports lower ≤ every policy's value of the objective.
	OrderHolds bool `json:"order_holds"`
}

// Row is one policy at one capacity.
type Row struct {
	CapacityTokens int64   `json:"capacity_tokens"`
	Policy         string  `json:"policy"`
	TELTokens      float64 `json:"tel_tokens"`
	TELMs          float64 `json:"tel_ms"`
	Violations     int64   `json:"slo_violations"`
	P90Ms          float64 `json:"p90_ms"`
	BlockHitRatio  float64 `json:"block_hit_ratio"`
	// Value is the policy's value of the objective; Gap its distance
	// above the interval's upper end (negative: below it, i.e. better than
	// every hindsight schedule found) and AboveLower its distance above
	// the lower bound.
	Value      float64 `json:"value"`
	Gap        float64 `json:"gap_to_upper"`
	AboveLower float64 `json:"above_lower"`
}

// Trace is a block-level trace in memory with its blocks numbered.
type Trace struct {
	// Stream is the trace as read; Stream.BlockTokens its block size.
	Stream *blocktrace.Stream
	// Reqs are its requests numbered by one prefixcache.Interner.
	Reqs []prefixcache.Req
}

// Load reads the block-level trace at path in format (blocksim.Open: a
// canonical trace is chained in block-token blocks; other formats carry
// their own block size, checked against block when block > 0) and
// numbers its blocks.
func Load(path, format string, block int64) (*Trace, error) {
	src, b, f, err := blocksim.Open(path, format, block)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := blocksim.ReadAll(src, b)
	if err != nil {
		return nil, err
	}
	reqs, err := prefixcache.InternAll(s.Requests)
	if err != nil {
		return nil, err
	}
	return &Trace{Stream: s, Reqs: reqs}, nil
}

// Block returns the block size, tokens.
func (tr *Trace) Block() int64 { return int64(tr.Stream.BlockTokens) }

// Lagrangian is the LP-solver name of prefixtail's Lagrangian bound.
const Lagrangian = "lagrangian"

// lowerName resolves the LP-solver name: auto is clp when built with coin,
// else lagrangian (gonum's dense simplex cannot take the programs of real
// traces, and the Lagrangian bound needs no LP solver).
func lowerName(name string) string {
	if name == "" || name == solvers.Auto {
		if solvers.Coin() {
			return "clp"
		}
		return Lagrangian
	}
	return name
}

// Backends returns the LP and IP backends named (nil for none, and for
// lagrangian, which is no lp.Backend; auto picks the COIN-OR ones when
// built with coin, else lagrangian for the LP and gonum for the IP).
func Backends(lpName, ipName string) (lpBe, ipBe lp.Backend, err error) {
	pick := func(name, coin string) (lp.Backend, error) {
		switch name {
		case "none", Lagrangian:
			return nil, nil
		case "", solvers.Auto:
			name = "gonum"
			if solvers.Coin() {
				name = coin
			}
		}
		return solvers.Backend(name)
	}
	lpName = lowerName(lpName)
	if lpBe, err = pick(lpName, "clp"); err != nil {
		return nil, nil, fmt.Errorf("LP solver: %w", err)
	}
	if ipBe, err = pick(ipName, "cbc"); err != nil {
		return nil, nil, fmt.Errorf("IP solver: %w", err)
	}
	return lpBe, ipBe, nil
}

// solverOptions checks capacity (tokens, a multiple of block) and returns
// the bounds' options cfg asks for: backends, time limit, progress and,
// with the Lagrangian lower bound, its options.
func solverOptions(capacity, block int64, cfg Config) (prefixtail.Options, error) {
	if capacity < 0 || capacity%block != 0 {
		return prefixtail.Options{}, fmt.Errorf("capacity %d tokens must be ≥ 0 and a multiple of the block size %d tokens", capacity, block)
	}
	lpBe, ipBe, err := Backends(cfg.LPSolver, cfg.IPSolver)
	if err != nil {
		return prefixtail.Options{}, err
	}
	opt := prefixtail.Options{LP: lpBe, IP: ipBe, TimeLimit: cfg.TimeLimit, Progress: cfg.Progress}
	if lowerName(cfg.LPSolver) == Lagrangian {
		opt.Lagrange = &prefixtail.LagrangeOptions{Progress: cfg.Progress}
	}
	return opt, nil
}

// BoundOne bounds the optimum of tr at one capacity, tokens.
func BoundOne(ctx context.Context, tr *Trace, capacity int64, cfg Config) (*Point, error) {
	block := tr.Block()
	opt, err := solverOptions(capacity, block, cfg)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	opt.Local = &prefixtail.LocalOptions{}
	if cfg.PercentileQ > 0 {
		b, err := prefixtail.Percentile(ctx, tr.Reqs, block, int(capacity/block), cfg.PercentileQ, opt)
		if err != nil {
			return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
		}
		return point(capacity, int(capacity/block), b, start), nil
	}
	p, err := prefixtail.New(tr.Reqs, block, int(capacity/block), cfg.Objective)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	cfg.Progress.Report(fmt.Sprintf("%d blocks: %s bounds over %d intervals, %d prefix rows", p.CapacityBlocks, cfg.Objective.Kind, len(p.Cols), p.PrecedenceRows), 0, 0)
	b, err := p.Bound(ctx, opt)
	if err != nil {
		return nil, fmt.Errorf("capacity %d tokens: %w", capacity, err)
	}
	return point(capacity, p.CapacityBlocks, b, start), nil
}

// point is the Point of bounds b at a capacity, timed from start.
func point(capacity int64, blocks int, b *prefixtail.Bounds, start time.Time) *Point {
	pt := &Point{CapacityTokens: capacity, CapacityBlocks: blocks, Bounds: *b, Seconds: time.Since(start).Seconds(), OrderHolds: true}
	pt.Width = b.Upper - b.Lower
	if b.Proven {
		pt.Width = 0
	}
	if b.Upper > 0 {
		pt.RelWidth = pt.Width / b.Upper
	}
	return pt
}

// Run bounds the optimum at every capacity and replays every policy. It
// returns one Point per capacity and the rows (capacities outermost).
func Run(ctx context.Context, tr *Trace, cfg Config) ([]Point, []Row, error) {
	var points []Point
	for _, c := range cfg.Capacities {
		pt, err := BoundOne(ctx, tr, c, cfg)
		if err != nil {
			return nil, nil, err
		}
		points = append(points, *pt)
	}
	if len(cfg.Policies) == 0 {
		return points, nil, nil
	}
	results, err := replay(tr, cfg)
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	for i, c := range cfg.Capacities {
		pt := &points[i]
		for _, r := range results[i*len(cfg.Policies) : (i+1)*len(cfg.Policies)] {
			row := Row{CapacityTokens: c, Policy: r.Name, TELTokens: r.Summary.TELTokens, TELMs: r.Summary.TELMs,
				Violations: r.Summary.Violations, P90Ms: r.Summary.P90, BlockHitRatio: r.BlockHitRatio}
			row.Value = row.TELTokens
			switch {
			case cfg.PercentileQ > 0:
				ms, ok := map[float64]float64{50: r.Summary.P50, 90: r.Summary.P90, 95: r.Summary.P95, 99: r.Summary.P99}[cfg.PercentileQ]
				if !ok {
					return nil, nil, fmt.Errorf("policies beside p%v: blocksim reports p50, p90, p95 and p99 only", cfg.PercentileQ)
				}
				row.Value = math.Round(cfg.Model.XiTokens(ms)) // uncached tokens are whole
			case cfg.Objective.Kind == prefixtail.SLO:
				row.Value = float64(row.Violations)
			}
			row.Gap = row.Value - pt.Upper
			row.AboveLower = row.Value - pt.Lower
			if row.Value < pt.Lower-1e-6*max(1, math.Abs(pt.Lower)) {
				pt.OrderHolds = false
			}
			rows = append(rows, row)
		}
	}
	return points, rows, nil
}

// replay runs every policy at every capacity through blocksim, with the
// SLO in ms set halfway between s and s + 1 tokens so that blocksim's
// count (TTFT > SLO) is exactly b > s.
func replay(tr *Trace, cfg Config) ([]blocksim.Result, error) {
	opt := blocksim.Options{Params: instance.Params{BlockSize: tr.Block(), Xi: cfg.XiTokens}, Model: cfg.Model,
		SLOMs: cfg.Model.TTFTMs(float64(cfg.SLOTokens) + 0.5)}
	results, _, err := blocksim.Replay(blocktrace.StreamSource(tr.Stream), blocksim.SweepRuns(cfg.Policies, cfg.Capacities), opt)
	return results, err
}

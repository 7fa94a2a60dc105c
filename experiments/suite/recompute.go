package suite

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/cake"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

// exactGrid is the number of intervals of the dense scan that finds the
// roofline's exact minimizer over [r_min, r_max].
const exactGrid = 100000

// cakeSchedules are the compute-and-load schedules, in table order.
func cakeSchedules() []string {
	return []string{"compute-only", "load-only", "static-split", "bidirectional", "bidirectional-claim"}
}

// Recompute is the recompute-or-load papers' analyses on the roofline
// model: the warm start r0 against the searched r* (Algorithm 1, ordered
// variant) and the exact minimizer across storage tiers and context
// lengths (seed 002), and the Cake schedules (seed 004).
func Recompute() *Suite {
	return &Suite{
		Name:     "recompute",
		Source:   "recompute paper (seed 002): r0 vs r* per tier; compute-and-load paper (seed 004): schedules vs compute-only and load-only",
		Workload: "roofline model of a preset LLM on an A100 at 50 % MFU, preset storage tiers",
		Policies: []string{"r0 (roofline)", "r* (golden-section search)", "compute-only", "load-only", "static-split", "bidirectional"},
		Metrics:  []string{"recompute ratio r (fraction of tokens)", "TTFT (ms)", "regret TTFT(r0)/TTFT(r*) − 1"},
		Params: []Param{
			{"model", "mistral-7b", "roofline model preset (" + kvsize.PresetNames() + ")"},
			{"tiers", "gpu,cpu,nvme,sata,hdd", "roofline storage tiers (" + tier.Names() + ")"},
			{"tokens", "4096,16384,32768", "context lengths, tokens (small: 4096)"},
			{"to-ms", "0.05", "per-layer fixed overhead t_o, ms"},
			{"cake-model", "llama-2-7b", "compute-and-load model preset"},
			{"cake-tiers", "nvme,network,hdd", "compute-and-load storage tiers"},
			{"chunk", "512", "compute-and-load chunk size, tokens"},
		},
		Grid:    recomputeGrid,
		Eval:    recomputeEval,
		Layout:  recomputeLayout,
		Figures: recomputeFigures,
	}
}

func recomputeGrid(env *Env) ([]Point, error) {
	ns, err := intsParam(env, "tokens")
	if err != nil {
		return nil, err
	}
	if env.Small && env.isDefault(Recompute(), "tokens") {
		ns = []int64{4096}
	}
	var grid []Point
	for _, kind := range []string{"roofline", "cake"} {
		name := "tiers"
		if kind == "cake" {
			name = "cake-tiers"
		}
		ts, err := listParam(env, name)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if _, err := tier.Lookup(t); err != nil {
				return nil, fmt.Errorf("flag --%s: %w", name, err)
			}
			for _, n := range ns {
				if n < 1 || n > 1<<24 {
					return nil, fmt.Errorf("flag --tokens: context length %d outside [1, 2^24] tokens", n)
				}
				grid = append(grid, Point{"kind": kind, "tier": t, "tokens": strconv.FormatInt(n, 10)})
			}
		}
	}
	return grid, nil
}

// hardware returns the A100's achieved FLOP/s at the default MFU.
func hardware() (float64, error) {
	d, err := tier.LookupDevice("a100")
	if err != nil {
		return 0, err
	}
	return d.Effective(tier.DefaultMFU)
}

func recomputeEval(_ context.Context, env *Env, _ int, p Point) ([]Record, error) {
	flops, err := hardware()
	if err != nil {
		return nil, err
	}
	t, err := tier.Lookup(p["tier"])
	if err != nil {
		return nil, err
	}
	n64, err := parseInt("tokens", p["tokens"])
	if err != nil {
		return nil, err
	}
	n := int(n64)
	if p["kind"] == "cake" {
		cfg, err := kvsize.Preset(env.Param("cake-model"))
		if err != nil {
			return nil, fmt.Errorf("flag --cake-model: %w", err)
		}
		chunk, err := intParam(env, "chunk")
		if err != nil {
			return nil, err
		}
		if chunk < 1 {
			return nil, fmt.Errorf("flag --chunk: want ≥ 1 token, got %d", chunk)
		}
		c, err := cake.FromModel(cfg, t, flops, n, int(chunk), 0)
		if err != nil {
			return nil, err
		}
		var recs []Record
		for _, s := range []cake.Schedule{cake.ComputeOnly(c), cake.LoadOnly(c), cake.StaticSplit(c), cake.Bidirectional(c), cake.BidirectionalClaim(c)} {
			recs = append(recs, Record{Key: s.Name, Values: map[string]Num{"ttft_ms": Num(1e3 * s.TTFT),
				"computed": Num(s.Computed), "loaded": Num(s.Loaded), "chunks": Num(c.Chunks())}})
		}
		return recs, nil
	}
	cfg, err := kvsize.Preset(env.Param("model"))
	if err != nil {
		return nil, fmt.Errorf("flag --model: %w", err)
	}
	toMs, err := floatParam(env, "to-ms")
	if err != nil {
		return nil, err
	}
	prof, err := recompute.HardwareProfile(cfg, t, flops, n, toMs/1e3)
	if err != nil {
		return nil, err
	}
	md := recompute.Model{Profile: prof, Tokens: n, Layers: cfg.Layers}
	lo, hi := recompute.DefaultRMin, recompute.DefaultRMax
	r0 := recompute.Clip(prof.R0(), lo, hi)
	res, err := recompute.Search(func(r float64) (float64, error) { return md.TTFT(r), nil }, r0, lo, hi, recompute.DefaultEps, recompute.Ordered)
	if err != nil {
		return nil, err
	}
	best, bestT := lo, md.TTFT(lo)
	for _, r := range []float64{r0, res.RStar} {
		if v := md.TTFT(r); v < bestT {
			best, bestT = r, v
		}
	}
	for k := 1; k <= exactGrid; k++ {
		r := lo + (hi-lo)*float64(k)/exactGrid
		if v := md.TTFT(r); v < bestT {
			best, bestT = r, v
		}
	}
	return []Record{{Key: t.Name, Values: map[string]Num{
		"r0_unclipped": Num(prof.R0()), "r0": Num(r0), "r_star": Num(res.RStar), "r_exact": Num(best),
		"ttft_r0_ms": Num(1e3 * md.TTFT(r0)), "ttft_r_star_ms": Num(1e3 * md.TTFT(res.RStar)), "ttft_exact_ms": Num(1e3 * bestT),
		"ttft_load_ms": Num(1e3 * md.TTFT(0)), "ttft_recompute_ms": Num(1e3 * md.TTFT(1)), "evaluations": Num(res.Evaluations)}}}, nil
}

func recomputeLayout(env *Env, grid []Point, recs []Record) (Output, error) {
	roof := report.Table{Title: fmt.Sprintf("recompute or load, roofline of %s on an A100 at 50%% MFU: r0 against r* (Algorithm 1, ordered) and the exact minimizer over [0.15, 1]", env.Param("model")),
		Header: []string{"tier", "tokens", "r0 unclipped", "r0", "r*", "r exact", "TTFT(r0) (ms)", "TTFT(r*) (ms)", "TTFT exact (ms)", "regret of r0", "load-only (ms)", "full recompute (ms)", "evaluations"}}
	ck := report.Table{Title: fmt.Sprintf("compute-and-load (Cake) schedules for %s, %s-token chunks: TTFT (ms)", env.Param("cake-model"), env.Param("chunk")),
		Header: []string{"tier", "tokens", "chunks", "compute-only", "load-only", "static split", "bidirectional", "exclusive claim", "bidirectional vs compute-only", "bidirectional vs load-only"}}
	type doc struct {
		Kind   string         `json:"kind"`
		Tier   string         `json:"tier"`
		Tokens string         `json:"tokens"`
		Key    string         `json:"key"`
		Values map[string]Num `json:"values"`
	}
	var docs []doc
	byPoint := map[int]map[string]Record{}
	var order []int
	for _, r := range recs {
		if byPoint[r.Point] == nil {
			byPoint[r.Point] = map[string]Record{}
			order = append(order, r.Point)
		}
		byPoint[r.Point][r.Key] = r
		p := grid[r.Point]
		docs = append(docs, doc{p["kind"], p["tier"], p["tokens"], r.Key, r.Values})
	}
	msF := func(v float64) report.Cell { return report.CellF(v, 3) }
	text := report.CellText
	for _, i := range order {
		p := grid[i]
		m := byPoint[i]
		if p["kind"] == "roofline" {
			r := m[p["tier"]]
			roof.Add(text(p["tier"]), text(p["tokens"]), report.CellF(r.V("r0_unclipped"), 4), report.CellF(r.V("r0"), 4),
				report.CellF(r.V("r_star"), 4), report.CellF(r.V("r_exact"), 4), msF(r.V("ttft_r0_ms")), msF(r.V("ttft_r_star_ms")),
				msF(r.V("ttft_exact_ms")), report.CellPct(r.V("ttft_r0_ms")/r.V("ttft_exact_ms")-1), msF(r.V("ttft_load_ms")),
				msF(r.V("ttft_recompute_ms")), report.CellI(int64(r.V("evaluations"))))
			continue
		}
		v := func(k string) float64 { return m[k].V("ttft_ms") }
		ck.Add(text(p["tier"]), text(p["tokens"]), report.CellI(int64(m["compute-only"].V("chunks"))),
			msF(v("compute-only")), msF(v("load-only")), msF(v("static-split")), msF(v("bidirectional")), msF(v("bidirectional-claim")),
			report.CellPct(v("bidirectional")/v("compute-only")-1), report.CellPct(v("bidirectional")/v("load-only")-1))
	}
	return Output{Doc: map[string]any{"model": env.Param("model"), "cake_model": env.Param("cake-model"), "rows": docs},
		Tables: []report.Table{roof, ck}}, nil
}

// recomputeFigures draws TTFT against r for each tier at each context
// length (r0 and the exact minimizer as markers), and each Cake schedule's
// TTFT against context length per tier.
func recomputeFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	flops, err := hardware()
	if err != nil {
		return nil, err
	}
	cfg, err := kvsize.Preset(env.Param("model"))
	if err != nil {
		return nil, err
	}
	toMs, err := floatParam(env, "to-ms")
	if err != nil {
		return nil, err
	}
	roof := map[string]*plots.Figure{}
	var lengths []string
	cakes := map[string]*plots.Figure{}
	var ctiers []string
	for _, r := range recs {
		p := grid[r.Point]
		if p["kind"] == "roofline" {
			f := roof[p["tokens"]]
			if f == nil {
				f = &plots.Figure{Title: fmt.Sprintf("roofline TTFT against r, %s, %s tokens", cfg.Name, p["tokens"]),
					XLabel: "recompute ratio r (fraction of tokens)", YLabel: "TTFT / TTFT(full recompute)"}
				roof[p["tokens"]] = f
				lengths = append(lengths, p["tokens"])
			}
			t, err := tier.Lookup(p["tier"])
			if err != nil {
				return nil, err
			}
			n, _ := strconv.Atoi(p["tokens"])
			prof, err := recompute.HardwareProfile(cfg, t, flops, n, toMs/1e3)
			if err != nil {
				return nil, err
			}
			md := recompute.Model{Profile: prof, Tokens: n, Layers: cfg.Layers}
			s := plots.Series{Name: t.Name}
			for k := 0; k <= 200; k++ {
				x := float64(k) / 200
				s.X, s.Y = append(s.X, x), append(s.Y, md.TTFT(x)/md.TTFT(1))
			}
			f.Series = append(f.Series, s)
			f.Markers = append(f.Markers, plots.Marker{Name: "r0 " + t.Name, X: r.V("r0")})
			continue
		}
		f := cakes[p["tier"]]
		if f == nil {
			f = &plots.Figure{Title: "compute-and-load TTFT, " + env.Param("cake-model") + ", " + p["tier"],
				XLabel: "context length (tokens)", YLabel: "TTFT (ms)", LogX: true}
			for _, n := range cakeSchedules() {
				f.Series = append(f.Series, plots.Series{Name: n})
			}
			cakes[p["tier"]] = f
			ctiers = append(ctiers, p["tier"])
		}
		for i, n := range cakeSchedules() {
			if n == r.Key {
				x, _ := strconv.ParseFloat(p["tokens"], 64)
				f.Series[i].X = append(f.Series[i].X, x)
				f.Series[i].Y = append(f.Series[i].Y, r.V("ttft_ms"))
			}
		}
	}
	var figs []NamedFigure
	for _, n := range lengths {
		figs = append(figs, NamedFigure{Stem: "roofline-" + n, Figure: *roof[n]})
	}
	for _, t := range ctiers {
		figs = append(figs, NamedFigure{Stem: "cake-" + strings.ReplaceAll(t, "/", "-"), Figure: *cakes[t]})
	}
	return figs, nil
}

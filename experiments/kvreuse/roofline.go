package kvreuse

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/cake"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/recompute"
	"github.com/tailbound/tailbound/models/tier"
)

// Hardware is a model on an accelerator over storage tiers, at several
// context lengths: what the roofline and the cake schedules are computed for.
type Hardware struct {
	// Model is the KV-cache configuration.
	Model kvsize.Config
	// Tiers are the storage tiers the cache is loaded from.
	Tiers []tier.Tier
	// FLOPS is the accelerator's achieved FLOP/s.
	FLOPS float64
	// Tokens are the context lengths N, tokens.
	Tokens []int
}

// RooflineRow is one tier and context length of the roofline.
type RooflineRow struct {
	Tier          string  `json:"tier"`
	BandwidthBps  float64 `json:"bandwidth_bytes_per_s"`
	Tokens        int     `json:"tokens"`
	TcS           float64 `json:"tc_s"` // per token per layer
	TiS           float64 `json:"ti_s"` // per token per layer
	ToS           float64 `json:"to_s"` // per layer
	R0Unclipped   float64 `json:"r0_unclipped"`
	R0            float64 `json:"r0"`
	TTFTR0S       float64 `json:"ttft_r0_s"`
	TTFTLoadS     float64 `json:"ttft_load_only_s"`      // r = 0
	TTFTRecomputS float64 `json:"ttft_full_recompute_s"` // r = 1
	TTFTRMinS     float64 `json:"ttft_r_min_s"`
}

// Roofline evaluates the selective-recompute roofline for every tier and
// context length of h, with per-layer overhead toS seconds and r0 clipped to
// [rMin, rMax]; its figure is TTFT/TTFT(full recompute) against r for each
// tier at the first context length.
func Roofline(h Hardware, toS, rMin, rMax float64) (Output, error) {
	cfg, ns := h.Model, h.Tokens
	var rows []RooflineRow
	fig := plots.Figure{Title: fmt.Sprintf("roofline TTFT, %s, %d tokens", cfg.Name, ns[0]), XLabel: "recompute ratio r (fraction of tokens)",
		YLabel: "TTFT / TTFT(full recompute)"}
	for _, t := range h.Tiers {
		for i, n := range ns {
			p, err := recompute.HardwareProfile(cfg, t, h.FLOPS, n, toS)
			if err != nil {
				return Output{}, err
			}
			md := recompute.Model{Profile: p, Tokens: n, Layers: cfg.Layers}
			r0 := recompute.Clip(p.R0(), rMin, rMax)
			rows = append(rows, RooflineRow{Tier: t.Name, BandwidthBps: t.Bandwidth, Tokens: n, TcS: p.Tc, TiS: p.Ti, ToS: p.To,
				R0Unclipped: p.R0(), R0: r0, TTFTR0S: md.TTFT(r0), TTFTLoadS: md.TTFT(0), TTFTRecomputS: md.TTFT(1), TTFTRMinS: md.TTFT(rMin)})
			if i == 0 {
				var xs, ys []float64
				for k := 0; k <= 200; k++ {
					r := float64(k) / 200
					xs, ys = append(xs, r), append(ys, md.TTFT(r)/md.TTFT(1))
				}
				fig.Series = append(fig.Series, plots.Series{Name: t.Name, X: xs, Y: ys})
				fig.Markers = append(fig.Markers, plots.Marker{Name: "r0 " + t.Name, X: r0})
			}
		}
	}
	tbl := report.Table{Title: fmt.Sprintf("roofline of %s (%.0f bytes/token of KV, %d layers) at %.0f TFLOP/s achieved; r0 clipped to [%g, %g]",
		cfg.Name, cfg.BytesPerToken(), cfg.Layers, h.FLOPS/1e12, rMin, rMax),
		Header: []string{"tier", "bandwidth (GB/s)", "tokens", "t_c (µs/token/layer)", "t_i (µs/token/layer)", "r0 unclipped", "r0",
			"TTFT(r0) (ms)", "TTFT load-only (ms)", "TTFT full recompute (ms)", "speed-up vs full recompute (×)"}}
	for _, r := range rows {
		tbl.Add(report.CellText(r.Tier), gbsCell(r.BandwidthBps), report.CellI(int64(r.Tokens)), usCell(r.TcS), usCell(r.TiS),
			report.CellF(r.R0Unclipped, 4), report.CellF(r.R0, 4), msCell(r.TTFTR0S), msCell(r.TTFTLoadS), msCell(r.TTFTRecomputS),
			report.CellF(r.TTFTRecomputS/r.TTFTR0S, 2))
	}
	doc := map[string]any{"model": cfg, "achieved_flops": h.FLOPS, "r_min": rMin, "r_max": rMax, "rows": rows}
	return Output{Doc: doc, Tables: []report.Table{tbl}, Figures: []plots.Figure{fig}}, nil
}

// CakeRow is one tier and context length of the compute-and-load schedules.
type CakeRow struct {
	Tier      string          `json:"tier"`
	Tokens    int             `json:"tokens"`
	Chunks    int             `json:"chunks"`
	Schedules []cake.Schedule `json:"schedules"`
}

// Cake evaluates the compute-and-load schedules (compute-only, load-only,
// static split, bidirectional and its exclusive-claim variant) for every
// tier and context length of h, in chunks of chunk tokens with a fixed
// compute overhead of overheadS seconds per chunk; its figure is each
// schedule's TTFT against context length for the first tier.
func Cake(h Hardware, chunk int, overheadS float64) (Output, error) {
	cfg, flops := h.Model, h.FLOPS
	var rows []CakeRow
	tbl := report.Table{Title: fmt.Sprintf("compute-and-load schedules for %s, %d-token chunks, %.0f TFLOP/s achieved", cfg.Name, chunk, flops/1e12),
		Header: []string{"tier", "tokens", "chunks", "compute-only (ms)", "load-only (ms)", "static split (chunks computed)", "static split (ms)",
			"bidirectional (ms)", "bidirectional computed/loaded", "bidirectional wasted (ms)", "exclusive-claim variant (ms)",
			"bidirectional vs compute-only", "bidirectional vs load-only"}}
	fig := plots.Figure{Title: "compute-and-load TTFT, " + cfg.Name + ", " + h.Tiers[0].Name, XLabel: "context length (tokens)", YLabel: "TTFT (ms)"}
	names := []string{"compute-only", "load-only", "static-split", "bidirectional", "bidirectional-claim"}
	series := make([]plots.Series, len(names))
	for i, n := range names {
		series[i].Name = n
	}
	for ti, t := range h.Tiers {
		for _, n := range h.Tokens {
			c, err := cake.FromModel(cfg, t, flops, n, chunk, overheadS)
			if err != nil {
				return Output{}, err
			}
			sch := []cake.Schedule{cake.ComputeOnly(c), cake.LoadOnly(c), cake.StaticSplit(c), cake.Bidirectional(c), cake.BidirectionalClaim(c)}
			rows = append(rows, CakeRow{Tier: t.Name, Tokens: n, Chunks: c.Chunks(), Schedules: sch})
			co, lo, ss, bi, cl := sch[0], sch[1], sch[2], sch[3], sch[4]
			tbl.Add(report.CellText(t.Name), report.CellI(int64(n)), report.CellI(int64(c.Chunks())), msCell(co.TTFT), msCell(lo.TTFT),
				report.CellI(int64(ss.Computed)), msCell(ss.TTFT), msCell(bi.TTFT), report.CellText(fmt.Sprintf("%d/%d", bi.Computed, bi.Loaded)),
				msCell(bi.Wasted), msCell(cl.TTFT), report.CellPct(bi.TTFT/co.TTFT-1), report.CellPct(bi.TTFT/lo.TTFT-1))
			if ti == 0 {
				for i, s := range sch {
					series[i].X, series[i].Y = append(series[i].X, float64(n)), append(series[i].Y, 1e3*s.TTFT)
				}
			}
		}
	}
	fig.Series = series
	doc := map[string]any{"model": cfg, "achieved_flops": flops, "chunk_tokens": chunk, "rows": rows}
	return Output{Doc: doc, Tables: []report.Table{tbl}, Figures: []plots.Figure{fig}}, nil
}

package suite

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/trace"
)

// idealKey is the record key of the infinite cache.
const idealKey = "ideal"

// BlockPolicies is the workload and prefix-sharing studies' block-level
// comparison (seeds 000 and 001): every prefix-cache policy's block hit
// ratio, mean and P99 TTFT and TEL against capacity on both Mooncake
// traces, at the traces' own 512-token hash blocks ("native") and at other
// block sizes by chaining the derived conversations (canonical turns)
// with that block size. Its characterize points (one per trace, after the
// policy points) add the workload study's analyses of each trace at its
// native hashes (experiments/characterize): ideal hit ratio, capacity
// needed for it, reuse time per category, block lifespan and the
// request-rate and ideal-hit-ratio time series, with their figures.
func BlockPolicies() *Suite {
	return &Suite{
		Name:     "block-policies",
		Source:   "workload study (seed 000) and prefix-sharing study (seed 001): hit ratio, TTFT and TEL against capacity",
		Workload: "Mooncake conversation and synthetic traces (shared/data/mooncake, read in place)",
		Policies: prefixcache.Names(),
		Metrics: []string{"block hit ratio", "mean and P99 TTFT (ms)", "TEL (s)",
			"characterize: ideal hit ratio, capacity for it (blocks, tokens), reuse time and lifespan quantiles (s), rate (req/s) and ideal hit ratio per window"},
		Params: []Param{
			{"traces", "conversation,synthetic", "Mooncake traces"},
			{"blocks", "native,128", "block sizes: native (the trace's 512-token hashes) or tokens (the derived conversations chained at that size)"},
			{"capacities", "524288,2097152,8388608", "capacities, tokens (multiples of every block size; small: 524288)"},
			{"policies", strings.Join(prefixcache.Names(), ","), "block-level policies"},
			{"xi-ms", "200", "TEL threshold ξ_s, ms"},
			tailParam(),
			{"window-s", "60", "characterize: width of the request-rate and ideal-hit-ratio time-series windows, s (0: none)"},
			mooncakeParam(),
		},
		Grid:    blockGrid,
		Eval:    blockEval,
		Layout:  blockLayout,
		Figures: blockFigures,
	}
}

func blockGrid(env *Env) ([]Point, error) {
	ts, err := listParam(env, "traces")
	if err != nil {
		return nil, err
	}
	bs, err := listParam(env, "blocks")
	if err != nil {
		return nil, err
	}
	if _, err := blockCaps(env); err != nil {
		return nil, err
	}
	if _, err := prefixcache.Parse(env.Param("policies")); err != nil {
		return nil, fmt.Errorf("flag --policies: %w", err)
	}
	var grid []Point
	for _, t := range ts {
		if t != "conversation" && t != "synthetic" {
			return nil, fmt.Errorf("flag --traces: want conversation or synthetic, got %q", t)
		}
		for _, b := range bs {
			if b != "native" {
				v, err := parseInt("blocks", b)
				if err != nil || v < 1 {
					return nil, fmt.Errorf("flag --blocks: want native or a block size ≥ 1 token, got %q", b)
				}
			}
			grid = append(grid, Point{"trace": t, "block": b})
		}
	}
	if _, err := charOptions(env); err != nil {
		return nil, err
	}
	for _, t := range ts {
		grid = append(grid, Point{"trace": t, "analysis": charAnalysis})
	}
	return grid, nil
}

func blockCaps(env *Env) ([]int64, error) {
	caps, err := intsParam(env, "capacities")
	if err != nil {
		return nil, err
	}
	if env.Small && env.isDefault(BlockPolicies(), "capacities") {
		caps = []int64{524288}
	}
	return caps, nil
}

// canonicalBytes returns the canonical trace of the conversations derived
// from Mooncake trace name, made once per run.
func canonicalBytes(env *Env, name string) ([]byte, error) {
	v, err := env.Memo("mooncake-canonical-bytes:"+name, func() (any, error) {
		p, err := mooncakePath(env, name)
		if err != nil {
			return nil, err
		}
		src, c, err := importer.Open(p, "mooncake", importer.DefaultOptions())
		if err != nil {
			return nil, err
		}
		defer c.Close()
		var buf bytes.Buffer
		if _, err := importer.WriteCanonical(&buf, src); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

func blockEval(ctx context.Context, env *Env, _ int, p Point) ([]Record, error) {
	if p["analysis"] == charAnalysis {
		return charEval(env, p)
	}
	caps, err := blockCaps(env)
	if err != nil {
		return nil, err
	}
	entries, err := prefixcache.Parse(env.Param("policies"))
	if err != nil {
		return nil, err
	}
	xiMs, err := floatParam(env, "xi-ms")
	if err != nil {
		return nil, err
	}
	tail, err := tailOn(env)
	if err != nil {
		return nil, err
	}
	var src blocktrace.Source
	var block int64
	var tailRecs []Record
	if p["block"] == "native" {
		path, err := mooncakePath(env, p["trace"])
		if err != nil {
			return nil, err
		}
		s, b, c, err := blocksim.Open(path, "mooncake", 0)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		src, block = s, b
		if tail {
			if tailRecs, err = tailRecords(ctx, path, caps, xiMs); err != nil {
				return nil, err
			}
		}
	} else {
		if block, err = parseInt("blocks", p["block"]); err != nil {
			return nil, err
		}
		raw, err := canonicalBytes(env, p["trace"])
		if err != nil {
			return nil, err
		}
		if src, err = blocksim.CanonicalSource(trace.NewReader(bytes.NewReader(raw), p["trace"]), block); err != nil {
			return nil, err
		}
	}
	for _, c := range caps {
		if err := checkCapacity("capacities", c, block); err != nil {
			return nil, err
		}
	}
	lat := latency.Default()
	res, ideal, err := blocksim.Replay(src, blocksim.SweepRuns(entries, caps), blocksim.Options{Params: instance.Params{BlockSize: block,
		Xi: lat.XiTokens(xiMs)}, Model: lat, SLOMs: latency.DefaultSLOMs})
	if err != nil {
		return nil, err
	}
	var recs []Record
	for _, r := range res {
		recs = append(recs, Record{Key: r.Name, Values: map[string]Num{"capacity": Num(r.CapacityTokens),
			"hit": Num(r.BlockHitRatio), "mean_ttft": Num(r.Summary.MeanTTFTMs), "p99": Num(r.Summary.P99), "tel_s": Num(r.Summary.TELMs / 1000), "slo": Num(r.Summary.Violations)}})
	}
	recs = append(recs, tailRecs...)
	recs = append(recs, Record{Key: idealKey, Values: map[string]Num{"capacity": Num(ideal.PeakLiveBlocks * block),
		"hit": Num(ideal.BlockHitRatio), "mean_ttft": Num(ideal.Summary.MeanTTFTMs), "p99": Num(ideal.Summary.P99),
		"tel_s": Num(ideal.Summary.TELMs / 1000), "block": Num(block)}})
	return recs, nil
}

// blockMetrics are the tabulated metrics: record name, title, decimals.
func blockMetrics() [][3]string {
	return [][3]string{{"hit", "block hit ratio", "4"}, {"mean_ttft", "mean TTFT (ms)", "0"}, {"p99", "P99 TTFT (ms)", "0"}, {"tel_s", "TEL (s)", "0"}}
}

func blockLayout(env *Env, grid []Point, recs []Record) (Output, error) {
	var out Output
	byPoint := map[int][]Record{}
	var order []int
	for _, r := range recs {
		if byPoint[r.Point] == nil {
			order = append(order, r.Point)
		}
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	type doc struct {
		Trace  string         `json:"trace"`
		Block  string         `json:"block"`
		Key    string         `json:"policy"`
		Values map[string]Num `json:"values"`
	}
	type charDoc struct {
		Trace  string         `json:"trace"`
		Key    string         `json:"key"`
		Values map[string]Num `json:"values"`
	}
	var docs []doc
	var chars []charDoc
	for _, i := range order {
		p := grid[i]
		if p["analysis"] == charAnalysis {
			for _, r := range byPoint[i] {
				if !strings.HasPrefix(r.Key, charCDF) {
					chars = append(chars, charDoc{p["trace"], r.Key, r.Values})
				}
			}
			out.Tables = append(out.Tables, charTables(p, byPoint[i])...)
			continue
		}
		var names []string
		var caps []int64
		cell := map[string]map[int64]Record{}
		var ideal Record
		var tail []Record
		for _, r := range byPoint[i] {
			docs = append(docs, doc{p["trace"], p["block"], r.Key, r.Values})
			if r.Key == idealKey {
				ideal = r
				continue
			}
			if r.Key == tailKey {
				tail = append(tail, r)
				continue
			}
			if cell[r.Key] == nil {
				cell[r.Key] = map[int64]Record{}
				names = append(names, r.Key)
			}
			c := int64(r.V("capacity"))
			if r.Key == names[0] {
				caps = append(caps, c)
			}
			cell[r.Key][c] = r
		}
		bl := p["block"]
		if bl == "native" {
			bl = "512 (native hashes)"
		}
		t := report.Table{Title: fmt.Sprintf("Mooncake %s trace, block %s tokens: every policy against capacity (ideal = infinite cache: hit %s, mean TTFT %s ms, P99 %s ms, TEL %s s, capacity needed %s tokens)",
			p["trace"], bl, report.F(ideal.V("hit"), 4), report.F(ideal.V("mean_ttft"), 0), report.F(ideal.V("p99"), 0), report.F(ideal.V("tel_s"), 0), report.I(int64(ideal.V("capacity")))),
			Header: append([]string{"capacity (tokens) — metric"}, names...)}
		for _, m := range blockMetrics() {
			prec, _ := strconv.Atoi(m[2])
			for _, c := range caps {
				line := []report.Cell{report.CellText(fmt.Sprintf("%d — %s", c, m[1]))}
				for _, n := range names {
					line = append(line, report.CellF(cell[n][c].V(m[0]), prec))
				}
				t.Add(line...)
			}
		}
		out.Tables = append(out.Tables, t)
		if len(tail) > 0 {
			out.Tables = append(out.Tables, tailTable(fmt.Sprintf("Mooncake %s trace, block %s tokens", p["trace"], bl), tail, names, cell))
		}
	}
	out.Doc = map[string]any{"rows": docs, "characterize": chars}
	return out, nil
}

// blockFigures draws hit ratio, mean TTFT and TEL against capacity for
// each trace and block size (blocksim.SweepFigures).
func blockFigures(env *Env, grid []Point, recs []Record) ([]NamedFigure, error) {
	byPoint := map[int][]Record{}
	var order []int
	for _, r := range recs {
		if byPoint[r.Point] == nil {
			order = append(order, r.Point)
		}
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	var figs []NamedFigure
	for _, i := range order {
		p := grid[i]
		if p["analysis"] == charAnalysis {
			figs = append(figs, charFigures(p, byPoint[i])...)
			continue
		}
		var res []blocksim.Result
		var ideal blocksim.Ideal
		var block int64
		var tail []Record
		for _, r := range byPoint[i] {
			if r.Key == tailKey {
				tail = append(tail, r)
				continue
			}
			if r.Key == idealKey {
				block = int64(r.V("block"))
				ideal.BlockHitRatio = r.V("hit")
				ideal.Summary.MeanTTFTMs = r.V("mean_ttft")
				ideal.Summary.TELMs = 1000 * r.V("tel_s")
				ideal.PeakLiveBlocks = int64(r.V("capacity"))
				continue
			}
			var x blocksim.Result
			x.Name, x.CapacityTokens, x.BlockHitRatio = r.Key, int64(r.V("capacity")), r.V("hit")
			x.Summary.MeanTTFTMs, x.Summary.TELMs = r.V("mean_ttft"), 1000*r.V("tel_s")
			res = append(res, x)
		}
		if block > 0 {
			ideal.PeakLiveBlocks /= block
		}
		hit, ttft, tel := blocksim.SweepFigures(res, ideal, block, "Mooncake "+p["trace"]+", block "+p["block"])
		stem := p["trace"] + "-" + p["block"]
		figs = append(figs, NamedFigure{stem + "-hit", hit}, NamedFigure{stem + "-ttft", ttft}, NamedFigure{stem + "-tel", tel})
		if len(tail) > 0 {
			figs = append(figs, NamedFigure{stem + "-tel-optimum", tailFigure(tel, tail)})
		}
	}
	return figs, nil
}

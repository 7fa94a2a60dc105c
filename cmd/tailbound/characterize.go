package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/trace"
)

// runCharacterize measures a block-hash trace as the workload study does.
func runCharacterize(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("characterize", "characterize TRACE --trace-format canonical|mooncake|bailian|blocks [--block-size B] [--window S] [--spatial] [--gpu G] [--plot-dir DIR] [--format F]", stdout)
	tf := fs.String("trace-format", "", "format of TRACE: canonical (turn and token distributions; chained in --block-size blocks), mooncake, bailian or blocks (the output of import --to blocks)")
	block := fs.Int64("block-size", 16, "canonical traces: block size B the conversations are chained in, tokens")
	window := fs.Float64("window", 0, "time series of request rate and ideal hit ratio per window of this many seconds (0: off)")
	spatial := fs.Bool("spatial", false, "spatial locality: ideal hit ratio when each request stores only [offset, offset+stride) of its chain")
	gpu := fs.String("gpu", "", "per-request KV size and ideal cache relative to the HBM left for KV cache of --kv-model on this GPU: "+hbm.GPUNames()+" (empty: off)")
	gpus := fs.Int("gpus", 0, "GPUs per serving instance (0: smallest power of two whose usable HBM is twice the weights)")
	reserve := fs.Float64("hbm-reserve", 0.1, "share of each GPU's HBM kept for activations")
	plotDir := fs.String("plot-dir", "", "write the reuse-time and lifespan CDFs (SVG) into this directory")
	format := fs.String("format", "table", report.FormatHelp)
	maxTurn := fs.Int("max-turn", 5, "pool turns above this into one category per request type (turns)")
	hubs := fs.Int("hubs", 10, "number of prefix hubs (blocks with the most distinct successors) to list")
	share := fs.Float64("shared-share", 0.05, "a prefix counts as shared when at least this fraction of the requests use it")
	kvModel := fs.String("kv-model", "qwen2-7b", "model whose KV bytes per token (fp16) size the capacity in GiB: "+kvsize.PresetNames())
	iflags := addImportFlags(fs)
	if err := parseFlagsPositional(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("want exactly one TRACE file argument (see --help)")
	}
	path := fs.Arg(0)
	if err := report.CheckFormat(*format); err != nil {
		return err
	}
	switch {
	case *tf == "":
		return fmt.Errorf("flag --trace-format: required (canonical|%s)", strings.Join(importer.Formats(), "|"))
	case *maxTurn < 1:
		return fmt.Errorf("flag --max-turn: %d must be ≥ 1", *maxTurn)
	case *hubs < 1:
		return fmt.Errorf("flag --hubs: %d must be ≥ 1", *hubs)
	case !(*share > 0 && *share <= 1):
		return fmt.Errorf("flag --shared-share: %v must be in (0, 1]", *share)
	}
	opt, err := iflags.options()
	if err != nil {
		return err
	}
	model, err := kvsize.Preset(*kvModel)
	if err != nil {
		return fmt.Errorf("flag --kv-model: %w", err)
	}
	if *plotDir != "" {
		if fi, err := os.Stat(*plotDir); err != nil || !fi.IsDir() {
			return fmt.Errorf("flag --plot-dir: %s is not a directory", *plotDir)
		}
	}
	var budget hbm.Budget
	if *gpu != "" {
		g, err := hbm.LookupGPU(*gpu)
		if err != nil {
			return fmt.Errorf("flag --gpu: %w", err)
		}
		if budget, err = (hbm.Instance{GPU: g, Count: *gpus, Reserve: *reserve, WeightBytes: model.BytesPerValue}).Budget(model); err != nil {
			return fmt.Errorf("flags --gpu, --gpus, --hbm-reserve: %w", err)
		}
	}
	copt := characterize.Options{MaxTurn: *maxTurn, Hubs: *hubs, SharedShare: *share, WindowS: *window, Spatial: *spatial}
	var rep *characterize.Report
	var sum importer.Summary
	var turns *characterize.Turns
	if *tf == "canonical" {
		if rep, turns, err = characterizeCanonical(path, *block, copt); err != nil {
			return err
		}
		sum = importer.Summary{Requests: turns.Turns, Linked: turns.Turns - turns.Conversations, Conversations: turns.Conversations}
	} else {
		if rep, sum, err = characterizeBlocks(path, *tf, opt, copt); err != nil {
			return err
		}
	}
	if *plotDir != "" {
		label := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		files, err := rep.Plot(*plotDir, label)
		if err != nil {
			return err
		}
		if turns != nil {
			more, err := turns.Plot(*plotDir, label)
			if err != nil {
				return err
			}
			files = append(files, more...)
		}
		if *gpu != "" {
			more, err := rep.KV(model, budget).Plot(*plotDir, label, rep)
			if err != nil {
				return err
			}
			files = append(files, more...)
		}
		for _, f := range files {
			fmt.Fprintln(stderr, "wrote", f)
		}
	}
	gib := model.Bytes(rep.Capacity.PeakLiveTokens) / (1 << 30)
	doc := struct {
		File          string `json:"file"`
		Format        string `json:"format"`
		Linked        int64  `json:"linked_requests"`
		Conversations int64  `json:"conversations"`
		KVModel       string `json:"kv_model"`
		// PeakLiveGiB is the capacity for the ideal hit ratio in GiB of
		// KV cache of KVModel.
		PeakLiveGiB float64 `json:"peak_live_gib"`
		*characterize.Report
		// Turns (canonical traces) and KV (--gpu) are absent when off.
		Turns *characterize.Turns `json:"turns,omitempty"`
		KV    *characterize.KV    `json:"kv,omitempty"`
	}{File: path, Format: *tf, Linked: sum.Linked, Conversations: sum.Conversations, KVModel: model.Name, PeakLiveGiB: gib, Report: rep, Turns: turns}
	tables := characterizeTables(path, rep, sum, model.Name, gib)
	if turns != nil {
		tables = append(tables, turns.Tables()...)
	}
	tables = append(tables, rep.StudyTables()...)
	if *gpu != "" {
		kv := rep.KV(model, budget)
		doc.KV = &kv
		tables = append(tables, kv.Tables()...)
	}
	return report.Emit(stdout, *format, doc, tables...)
}

// characterizeCanonical characterizes a canonical trace chained in
// block-token blocks, with its turn and token distributions.
func characterizeCanonical(path string, block int64, opt characterize.Options) (*characterize.Report, *characterize.Turns, error) {
	if block < 1 {
		return nil, nil, fmt.Errorf("flag --block-size: %d must be ≥ 1 token", block)
	}
	f, err := trace.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var tc characterize.TurnCounter
	src, err := characterize.CanonicalSource(trace.NewReader(f, path), block, &tc)
	if err != nil {
		return nil, nil, err
	}
	rep, err := characterize.Run(src, int(block), opt)
	if err != nil {
		return nil, nil, err
	}
	if rep.Requests == 0 {
		return nil, nil, fmt.Errorf("%s: no requests", path)
	}
	return rep, tc.Turns(), nil
}

// characterizeBlocks characterizes a block-hash trace.
func characterizeBlocks(path, format string, iopt importer.Options, opt characterize.Options) (*characterize.Report, importer.Summary, error) {
	src, closer, err := importer.Open(path, format, iopt)
	if err != nil {
		return nil, importer.Summary{}, fmt.Errorf("flag --trace-format: %w", err)
	}
	defer closer.Close()
	// Read the first request before starting: the blocks format states
	// its block size on each line.
	first, err := src.Next()
	if err == io.EOF {
		return nil, importer.Summary{}, fmt.Errorf("%s: no requests", path)
	}
	if err != nil {
		return nil, importer.Summary{}, err
	}
	pending := true
	next := func() (blocktrace.Request, error) {
		if pending {
			pending = false
			return first, nil
		}
		return src.Next()
	}
	rep, err := characterize.Run(next, src.BlockTokens(), opt)
	if err != nil {
		return nil, importer.Summary{}, err
	}
	return rep, src.Summary(), nil
}

func characterizeTables(path string, r *characterize.Report, s importer.Summary, model string, gib float64) []report.Table {
	f3 := func(x float64) string { return report.F(x, 3) }
	summary := report.Table{Title: "trace " + path,
		Header: []string{"requests", "span (s)", "block (tokens)", "block refs (blocks)", "distinct (blocks)",
			"ideal block hit ratio", "linked (requests)", "conversations", "shared prefix (blocks)"},
		Rows: [][]string{{report.I(r.Requests), f3(r.SpanS), fmt.Sprint(r.BlockTokens), report.I(r.RefBlocks),
			report.I(r.DistinctBlocks), report.F(r.IdealHitRatio, 4), report.I(s.Linked), report.I(s.Conversations),
			fmt.Sprint(r.SharedPrefixBlocks)}}}
	c := r.Capacity
	capacity := report.Table{Title: "cache size for the ideal hit ratio (peak live blocks: used before and used again)",
		Header: []string{"peak live (blocks)", "peak live (tokens)", "peak live (GiB, " + model + ")", "after request", "at (s)", "mean live (blocks)"},
		Rows: [][]string{{report.I(c.PeakLiveBlocks), report.I(c.PeakLiveTokens), report.F(gib, 1), fmt.Sprint(c.PeakAfter),
			f3(c.PeakTime), report.F(c.MeanLiveBlocks, 1)}}}
	reuse := report.Table{Title: "reuse time by category of the previous use",
		Header: []string{"category", "uses (blocks)", "reuses (blocks)", "reuse fraction", "P10 (s)", "P25 (s)",
			"P50 (s)", "P75 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"}}
	for _, cat := range append(r.Categories, r.Overall) {
		q := cat.ReuseTime
		reuse.Rows = append(reuse.Rows, []string{cat.Name, report.I(cat.Uses), report.I(cat.Reuses),
			report.F(cat.ReuseFraction, 4), f3(q.P10), f3(q.P25), f3(q.P50), f3(q.P75), f3(q.P90), f3(q.P99), f3(q.Max), f3(q.Mean)})
	}
	l := r.Lifespan
	life := report.Table{Title: "block lifespan (first to last use)",
		Header: []string{"blocks", "count (blocks)", "P50 (s)", "P90 (s)", "P99 (s)", "max (s)", "mean (s)"},
		Rows: [][]string{
			{"all", report.I(l.Blocks), f3(l.All.P50), f3(l.All.P90), f3(l.All.P99), f3(l.All.Max), f3(l.All.Mean)},
			{"reused", report.I(l.Reused), f3(l.ReusedSpan.P50), f3(l.ReusedSpan.P90), f3(l.ReusedSpan.P99),
				f3(l.ReusedSpan.Max), f3(l.ReusedSpan.Mean)}}}
	hubs := report.Table{Title: "prefix hubs (blocks with the most distinct successors)",
		Header: []string{"depth (blocks)", "depth (tokens)", "fanout (blocks)", "requests", "hash id"}}
	for _, h := range r.Hubs {
		hubs.Rows = append(hubs.Rows, []string{fmt.Sprint(h.Depth), report.I(h.DepthTokens), fmt.Sprint(h.Fanout),
			report.I(h.Requests), fmt.Sprint(h.Hash)})
	}
	return []report.Table{summary, capacity, reuse, life, hubs}
}

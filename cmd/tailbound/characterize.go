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
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/kvsize"
)

// runCharacterize measures a block-hash trace as the workload study does.
func runCharacterize(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("characterize", "characterize TRACE --trace-format mooncake|bailian|blocks [--plot-dir DIR] [--format F]", stdout)
	tf := fs.String("trace-format", "", "format of TRACE: mooncake, bailian or blocks (the output of import --to blocks)")
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
		return fmt.Errorf("flag --trace-format: required (%s)", strings.Join(importer.Formats(), "|"))
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
	src, closer, err := importer.Open(path, *tf, opt)
	if err != nil {
		return fmt.Errorf("flag --trace-format: %w", err)
	}
	defer closer.Close()
	// Read the first request before starting: the blocks format states
	// its block size on each line.
	first, err := src.Next()
	if err == io.EOF {
		return fmt.Errorf("%s: no requests", path)
	}
	if err != nil {
		return err
	}
	pending := true
	next := func() (blocktrace.Request, error) {
		if pending {
			pending = false
			return first, nil
		}
		return src.Next()
	}
	rep, err := characterize.Run(next, src.BlockTokens(), characterize.Options{MaxTurn: *maxTurn, Hubs: *hubs, SharedShare: *share})
	if err != nil {
		return err
	}
	sum := src.Summary()
	if *plotDir != "" {
		label := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		files, err := rep.Plot(*plotDir, label)
		if err != nil {
			return err
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
	}{path, *tf, sum.Linked, sum.Conversations, model.Name, gib, rep}
	return report.Emit(stdout, *format, doc, characterizeTables(path, rep, sum, model.Name, gib)...)
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

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/kvsize"
)

// runCharacterize measures a block-hash trace as the workload study does.
func runCharacterize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
		if *block < 1 {
			return fmt.Errorf("flag --block-size: %d must be ≥ 1 token", *block)
		}
		if rep, turns, err = characterize.RunCanonical(path, *block, copt); err != nil {
			return err
		}
		sum = importer.Summary{Requests: turns.Turns, Linked: turns.Turns - turns.Conversations, Conversations: turns.Conversations}
	} else {
		src, closer, err := importer.Open(path, *tf, opt)
		if err != nil {
			return fmt.Errorf("flag --trace-format: %w", err)
		}
		defer closer.Close()
		if rep, err = characterize.RunSource(src, path, copt); err != nil {
			return err
		}
		sum = src.Summary()
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
	tables := rep.Tables(path, sum, model.Name, gib)
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

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
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/kvsize"
)

// runCharacterize measures a block-hash trace as the workload study does.
func runCharacterize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
	rep, err := characterize.RunSource(src, path, characterize.Options{MaxTurn: *maxTurn, Hubs: *hubs, SharedShare: *share})
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
	return report.Emit(stdout, *format, doc, rep.Tables(path, sum, model.Name, gib)...)
}

package characterize

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/hbm"
	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/kvsize"
)

// TraceOptions are the settings of the characterize command, which
// measures one trace file as the workload study does.
type TraceOptions struct {
	// Args are the command's arguments: exactly one, the trace file.
	Args []string
	// TraceFormat is the file's format: canonical or an importer format
	// (mooncake, bailian, blocks).
	TraceFormat string
	// BlockSize is the block size canonical traces are chained in, tokens
	// (≥ 1).
	BlockSize int64
	// WindowS, MaxTurn, Hubs, SharedShare and Spatial are the analyses'
	// Options (WindowS in s, MaxTurn in turns, SharedShare in (0, 1]).
	WindowS     float64
	MaxTurn     int
	Hubs        int
	SharedShare float64
	Spatial     bool
	// GPU, when not empty, sizes the KV cache against the HBM of an
	// instance of GPUs of this kind (hbm.GPUNames), GPUs of them (0: the
	// fewest that hold the weights twice), HBMReserve of each kept for
	// activations.
	GPU        string
	GPUs       int
	HBMReserve float64
	// KVModel names the model whose KV bytes per token size the capacity
	// (kvsize.PresetNames).
	KVModel string
	// PlotDir, when not empty, is an existing directory the CDFs are
	// drawn into (SVG).
	PlotDir string
	// Format is the output format (report.FormatHelp).
	Format string
	// Importer are the importer's settings.
	Importer importer.Settings
}

// plan is what TraceOptions resolve to.
type plan struct {
	path   string
	opt    Options
	imp    importer.Options
	model  kvsize.Config
	budget hbm.Budget
}

// resolve validates o in the command's order and returns its plan.
func (o TraceOptions) resolve() (plan, error) {
	var p plan
	if len(o.Args) != 1 {
		return p, errors.New("want exactly one TRACE file argument (see --help)")
	}
	p.path = o.Args[0]
	if err := report.CheckFormat(o.Format); err != nil {
		return p, err
	}
	switch {
	case o.TraceFormat == "":
		return p, option.Errorf("trace-format", "required (canonical|%s)", strings.Join(importer.Formats(), "|"))
	case o.MaxTurn < 1:
		return p, option.Errorf("max-turn", "%d must be ≥ 1", o.MaxTurn)
	case o.Hubs < 1:
		return p, option.Errorf("hubs", "%d must be ≥ 1", o.Hubs)
	case !(o.SharedShare > 0 && o.SharedShare <= 1):
		return p, option.Errorf("shared-share", "%v must be in (0, 1]", o.SharedShare)
	}
	var err error
	if p.imp, err = o.Importer.Options(); err != nil {
		return p, err
	}
	if p.model, err = kvsize.Preset(o.KVModel); err != nil {
		return p, option.Wrap("kv-model", err)
	}
	if o.PlotDir != "" {
		if fi, err := os.Stat(o.PlotDir); err != nil || !fi.IsDir() {
			return p, option.Errorf("plot-dir", "%s is not a directory", o.PlotDir)
		}
	}
	if p.budget, err = o.budget(p.model); err != nil {
		return p, err
	}
	if o.TraceFormat == "canonical" && o.BlockSize < 1 {
		return p, option.Errorf("block-size", "%d must be ≥ 1 token", o.BlockSize)
	}
	p.opt = Options{MaxTurn: o.MaxTurn, Hubs: o.Hubs, SharedShare: o.SharedShare, WindowS: o.WindowS, Spatial: o.Spatial}
	return p, nil
}

// budget is the HBM left for KV cache of model with o.GPU (zero without).
func (o TraceOptions) budget(model kvsize.Config) (hbm.Budget, error) {
	if o.GPU == "" {
		return hbm.Budget{}, nil
	}
	g, err := hbm.LookupGPU(o.GPU)
	if err != nil {
		return hbm.Budget{}, option.Wrap("gpu", err)
	}
	b, err := (hbm.Instance{GPU: g, Count: o.GPUs, Reserve: o.HBMReserve, WeightBytes: model.BytesPerValue}).Budget(model)
	if err != nil {
		// Named as before option.Error existed: "flags --gpu, --gpus, --hbm-reserve".
		return b, fmt.Errorf("flags --gpu, --gpus, --hbm-reserve: %w", err)
	}
	return b, nil
}

// traceDoc is characterize's JSON document.
type traceDoc struct {
	File          string `json:"file"`
	Format        string `json:"format"`
	Linked        int64  `json:"linked_requests"`
	Conversations int64  `json:"conversations"`
	KVModel       string `json:"kv_model"`
	// PeakLiveGiB is the capacity for the ideal hit ratio in GiB of
	// KV cache of KVModel.
	PeakLiveGiB float64 `json:"peak_live_gib"`
	*Report
	// Turns (canonical traces) and KV (--gpu) are absent when off.
	Turns *Turns `json:"turns,omitempty"`
	KV    *KV    `json:"kv,omitempty"`
}

// Trace measures the trace o names and returns what characterize prints:
// the JSON document and the tables. With o.PlotDir it draws the figures
// there first, naming each file written on log.
func Trace(o TraceOptions, log io.Writer) (any, []report.Table, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, nil, err
	}
	rep, sum, turns, err := o.measure(p)
	if err != nil {
		return nil, nil, err
	}
	if o.PlotDir != "" {
		files, err := o.plot(p, rep, turns)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range files {
			fmt.Fprintln(log, "wrote", f)
		}
	}
	gib := p.model.Bytes(rep.Capacity.PeakLiveTokens) / (1 << 30)
	doc := traceDoc{File: p.path, Format: o.TraceFormat, Linked: sum.Linked, Conversations: sum.Conversations,
		KVModel: p.model.Name, PeakLiveGiB: gib, Report: rep, Turns: turns}
	tables := rep.Tables(p.path, sum, p.model.Name, gib)
	if turns != nil {
		tables = append(tables, turns.Tables()...)
	}
	tables = append(tables, rep.StudyTables()...)
	if o.GPU != "" {
		kv := rep.KV(p.model, p.budget)
		doc.KV = &kv
		tables = append(tables, kv.Tables()...)
	}
	return doc, tables, nil
}

// measure runs the analyses on the trace: a canonical one chained in
// o.BlockSize blocks (with its turn distributions), else an importer's.
func (o TraceOptions) measure(p plan) (*Report, importer.Summary, *Turns, error) {
	if o.TraceFormat == "canonical" {
		rep, turns, err := RunCanonical(p.path, o.BlockSize, p.opt)
		if err != nil {
			return nil, importer.Summary{}, nil, err
		}
		sum := importer.Summary{Requests: turns.Turns, Linked: turns.Turns - turns.Conversations, Conversations: turns.Conversations}
		return rep, sum, turns, nil
	}
	src, closer, err := importer.Open(p.path, o.TraceFormat, p.imp)
	if err != nil {
		return nil, importer.Summary{}, nil, option.Wrap("trace-format", err)
	}
	defer closer.Close()
	rep, err := RunSource(src, p.path, p.opt)
	if err != nil {
		return nil, importer.Summary{}, nil, err
	}
	return rep, src.Summary(), nil, nil
}

// plot draws the report's figures (and the turns' and the KV sizes' when
// there are) into o.PlotDir, named after the trace file.
func (o TraceOptions) plot(p plan, rep *Report, turns *Turns) ([]string, error) {
	label := strings.TrimSuffix(filepath.Base(p.path), filepath.Ext(p.path))
	files, err := rep.Plot(o.PlotDir, label)
	if err != nil {
		return nil, err
	}
	if turns != nil {
		more, err := turns.Plot(o.PlotDir, label)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	if o.GPU != "" {
		more, err := rep.KV(p.model, p.budget).Plot(o.PlotDir, label, rep)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// blockStudyFlags are simulate --level block's options for the studies'
// analyses.
type blockStudyFlags struct {
	queue      bool
	servers    int
	mix        string
	ablation   bool
	blockSizes string
}

func (f *blockStudyFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.queue, "queue", false, "block level: queued TTFT — requests wait in a single-server FIFO prefill queue whose service time is their TTFT")
	fs.IntVar(&f.servers, "queue-servers", 1, "block level, --queue: number of identical servers (serving instances) of the FIFO queue")
	fs.StringVar(&f.mix, "mix", "", "block level: interleave this second trace (same --trace-format and block size) by time, ids kept disjoint")
	fs.BoolVar(&f.ablation, "ablation", false, "block level: the workload-aware ablation (lru, wa, wa-no-offset, wa-no-life, wa-no-categories, wa-pooled-no-life) instead of the default policies")
	fs.StringVar(&f.blockSizes, "block-sizes", "", "block level, canonical traces: sweep the block size, comma-separated tokens (every capacity a multiple of each)")
}

// entries returns the ablation entries when asked (and no --policies),
// after checking the flags.
func (f *blockStudyFlags) entries(policies string) ([]prefixcache.Entry, error) {
	if f.servers < 1 {
		return nil, fmt.Errorf("flag --queue-servers: %d must be ≥ 1", f.servers)
	}
	if !f.ablation {
		return nil, nil
	}
	if policies != "" {
		return nil, fmt.Errorf("flags --ablation and --policies: give one")
	}
	return blocksim.AblationEntries(), nil
}

// mixed wraps src with the --mix trace.
func (f *blockStudyFlags) mixed(src blocktrace.Source, format string, block int64) (blocktrace.Source, func(), error) {
	if f.mix == "" {
		return src, func() {}, nil
	}
	b, bb, c, err := blocksim.Open(f.mix, format, block)
	if err != nil {
		return nil, func() {}, fmt.Errorf("flag --mix: %w", err)
	}
	if bb != block {
		c.Close()
		return nil, func() {}, fmt.Errorf("flag --mix: %s has %d-token blocks, the trace %d", f.mix, bb, block)
	}
	return blocksim.Mix(src, b), func() { c.Close() }, nil
}

// sweepBlockSizes runs --block-sizes over a canonical trace.
func (f *blockStudyFlags) sweepBlockSizes(o *simOptions, entries []prefixcache.Entry, capacities []int64, opt blocksim.Options, stdout io.Writer) error {
	if o.traceFmt != "canonical" || o.tracePath == "" {
		return fmt.Errorf("flag --block-sizes: needs a canonical --trace (block-hash traces carry their block size)")
	}
	sizes, err := option.Ints("block-sizes", f.blockSizes)
	if err != nil {
		return err
	}
	open := func(b int64) (blocktrace.Source, func(), error) {
		src, _, c, err := blocksim.Open(o.tracePath, "canonical", b)
		if err != nil {
			return nil, func() {}, err
		}
		src, done, err := f.mixed(src, "canonical", b)
		if err != nil {
			c.Close()
			return nil, func() {}, err
		}
		return src, func() { done(); c.Close() }, nil
	}
	res, err := blocksim.SweepBlockSizes(open, sizes, entries, capacities, opt)
	if err != nil {
		return fmt.Errorf("flag --block-sizes: %w", err)
	}
	if o.plot != "" {
		if err := blocksim.SizedFigure(res, filepath.Base(o.tracePath)).Save(o.plot); err != nil {
			return err
		}
	}
	type row struct {
		BlockTokens    int64    `json:"block_size_tokens"`
		CapacityTokens int64    `json:"capacity_tokens"`
		Policy         string   `json:"policy"`
		BlockHitRatio  *float64 `json:"block_hit_ratio"`
		HitRatio       *float64 `json:"hit_ratio"`
		IdealHitRatio  *float64 `json:"ideal_hit_ratio"`
		MeanTTFTMs     float64  `json:"mean_ttft_ms"`
		P90Ms          float64  `json:"p90_ms"`
		P99Ms          float64  `json:"p99_ms"`
		TELMs          float64  `json:"tel_ms"`
	}
	var rows []row
	var plain []blocksim.Result
	for _, r := range res {
		m := r.Summary
		rows = append(rows, row{r.BlockTokens, r.CapacityTokens, r.Name, report.Ratio(r.HitBlocks, r.RefBlocks), report.Value(m.HitRatio), report.Value(r.Ideal.Summary.HitRatio),
			m.MeanTTFTMs, m.P90, m.P99, m.TELMs})
		plain = append(plain, r.Result)
	}
	tables := []report.Table{blocksim.SizedTable(res)}
	if opt.Queue {
		tables = append(tables, blocksim.QueuedTable(plain))
	}
	doc := map[string]any{"trace": o.tracePath, "units": "tokens, ms, ratios in [0,1]", "runs": rows}
	return report.Emit(stdout, o.format, doc, tables...)
}

// settings returns the study options that are on, for the JSON settings.
func (f *blockStudyFlags) settings() map[string]any {
	s := map[string]any{}
	if f.queue {
		s["queue"] = "FIFO prefill queue, service = TTFT"
		s["queue_servers"] = f.servers
	}
	if f.mix != "" {
		s["mix"] = f.mix
	}
	if f.ablation {
		s["ablation"] = strings.Join([]string{"lru", "wa", "wa-no-offset", "wa-no-life", "wa-no-categories", "wa-pooled-no-life"}, ",")
	}
	return s
}

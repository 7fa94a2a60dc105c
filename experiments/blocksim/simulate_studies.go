package blocksim

import (
	"path/filepath"
	"strings"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// sizedRow is one run of the --block-sizes sweep in the JSON document.
type sizedRow struct {
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

// sweepBlockSizes runs --block-sizes over a canonical trace: every policy
// at every capacity for each block size, the trace (and --mix) re-chained
// in that size's blocks.
func (c *Command) sweepBlockSizes(entries []prefixcache.Entry, capacities []int64, opt Options) (any, []report.Table, error) {
	if c.TraceFormat != "canonical" || c.Trace == "" {
		return nil, nil, option.Errorf("block-sizes", "needs a canonical --trace (block-hash traces carry their block size)")
	}
	sizes, err := option.Ints("block-sizes", c.BlockSizes)
	if err != nil {
		return nil, nil, err
	}
	open := func(b int64) (blocktrace.Source, func(), error) {
		src, _, f, err := Open(c.Trace, "canonical", b)
		if err != nil {
			return nil, func() {}, err
		}
		m, done, err := c.mixed(src, "canonical", b, func() { f.Close() })
		return m.next, done, err
	}
	res, err := SweepBlockSizes(open, sizes, entries, capacities, opt)
	if err != nil {
		return nil, nil, &option.Error{Flags: []string{"block-sizes"}, Err: err}
	}
	if c.Plot != "" {
		if err := SizedFigure(res, filepath.Base(c.Trace)).Save(c.Plot); err != nil {
			return nil, nil, err
		}
	}
	var rows []sizedRow
	var plain []Result
	for _, r := range res {
		m := r.Summary
		rows = append(rows, sizedRow{r.BlockTokens, r.CapacityTokens, r.Name, report.Ratio(r.HitBlocks, r.RefBlocks), report.Value(m.HitRatio),
			report.Value(r.Ideal.Summary.HitRatio), m.MeanTTFTMs, m.P90, m.P99, m.TELMs})
		plain = append(plain, r.Result)
	}
	tables := []report.Table{SizedTable(res)}
	if opt.Queue {
		tables = append(tables, QueuedTable(plain))
	}
	return map[string]any{"trace": c.Trace, "units": "tokens, ms, ratios in [0,1]", "runs": rows}, tables, nil
}

// settings returns the study options that are on, for the report's JSON
// settings.
func (c *Command) settings() map[string]any {
	s := map[string]any{}
	if c.Queue {
		s["queue"] = "FIFO prefill queue, service = TTFT"
		s["queue_servers"] = c.QueueServers
	}
	if c.Mix != "" {
		s["mix"] = c.Mix
	}
	if c.Ablation {
		s["ablation"] = strings.Join([]string{"lru", "wa", "wa-no-offset", "wa-no-life", "wa-no-categories", "wa-pooled-no-life"}, ",")
	}
	return s
}

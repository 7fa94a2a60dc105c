package blocksim

import (
	"fmt"
	"io"
	"maps"

	"github.com/tailbound/tailbound/experiments/plots"
	"github.com/tailbound/tailbound/experiments/report"

	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Mix interleaves two traces of the same block size by arrival time (the
// prefix-sharing study's mixed workloads): requests come in time order, a
// tie taking a's request first. Their ids are made disjoint so that the
// traces share no block and no conversation: each trace's hashes are
// renumbered densely in order of first appearance, a's even and b's odd
// (equal hashes of one trace stay equal, so its prefix structure is
// unchanged), and conversation c of a becomes 2c, of b 2c+1 (−1, unlinked,
// stays −1). Categories are kept.
func Mix(a, b blocktrace.Source) blocktrace.Source {
	srcs := [2]blocktrace.Source{a, b}
	var head [2]*blocktrace.Request
	var done [2]bool
	ids := [2]map[int64]int64{{}, {}}
	pull := func(k int) error {
		if head[k] != nil || done[k] {
			return nil
		}
		r, err := srcs[k]()
		if err != nil {
			if err == io.EOF {
				done[k] = true
				return nil
			}
			return err
		}
		head[k] = &r
		return nil
	}
	return func() (blocktrace.Request, error) {
		for k := range srcs {
			if err := pull(k); err != nil {
				return blocktrace.Request{}, fmt.Errorf("mixed trace %d: %w", k+1, err)
			}
		}
		k := 0
		switch {
		case head[0] == nil && head[1] == nil:
			return blocktrace.Request{}, io.EOF
		case head[0] == nil || head[1] != nil && head[1].Time < head[0].Time:
			k = 1
		}
		r := *head[k]
		head[k] = nil
		hs := make([]int64, len(r.Hashes))
		for j, h := range r.Hashes {
			id, ok := ids[k][h]
			if !ok {
				id = 2*int64(len(ids[k])) + int64(k)
				ids[k][h] = id
			}
			hs[j] = id
		}
		r.Hashes = hs
		if r.Conv >= 0 {
			r.Conv = 2*r.Conv + k
		}
		return r, nil
	}
}

// AblationEntries are the workload-aware policy with parts switched off
// (the workload study's Figure 28), with LRU, what the policy falls back
// to with no fit: "wa" is the full policy; "wa-no-offset" drops the depth
// tie-break (technique ②), "wa-no-life" the lifespan regulation (③),
// "wa-no-categories" the per-category fits (①: one pooled distribution),
// "wa-pooled-no-life" both ① and ③. They set the wa-… options of
// prefixcache.NewWorkloadAware over the run's other options.
func AblationEntries() []prefixcache.Entry {
	with := func(kv ...string) prefixcache.Factory {
		return func(cfg prefixcache.Config) (prefixcache.Policy, error) {
			o := maps.Clone(cfg.Options)
			if o == nil {
				o = map[string]string{}
			}
			for i := 0; i+1 < len(kv); i += 2 {
				o[kv[i]] = kv[i+1]
			}
			cfg.Options = o
			return prefixcache.NewWorkloadAware(cfg)
		}
	}
	return []prefixcache.Entry{
		{Name: "lru", New: prefixcache.NewLRU, Doc: "baseline"},
		{Name: "wa", New: with(), Doc: "workload-aware, every part on"},
		{Name: "wa-no-offset", New: with("wa-offset", "off"), Doc: "② off: no depth tie-break"},
		{Name: "wa-no-life", New: with("wa-life", "off"), Doc: "③ off: no lifespan regulation"},
		{Name: "wa-no-categories", New: with("wa-categories", "off"), Doc: "① off: one pooled distribution"},
		{Name: "wa-pooled-no-life", New: with("wa-categories", "off", "wa-life", "off"), Doc: "① and ③ off"},
	}
}

// SizedResult is one run of a block-size sweep.
type SizedResult struct {
	// BlockTokens is the block size of the run, tokens.
	BlockTokens int64
	Result
	// Ideal is the infinite cache at this block size.
	Ideal Ideal
}

// SweepBlockSizes replays every entry at every capacity (tokens, each a
// multiple of every size) once per block size, opening the trace chained
// at that size with open (for canonical traces, whose chains exist at any
// size), and returns the results in size order, then entry and capacity.
func SweepBlockSizes(open func(block int64) (blocktrace.Source, func(), error), sizes []int64, entries []prefixcache.Entry,
	capacities []int64, opt Options) ([]SizedResult, error) {
	var out []SizedResult
	for _, b := range sizes {
		if b < 1 {
			return nil, fmt.Errorf("block size %d tokens must be ≥ 1", b)
		}
		for _, c := range capacities {
			if c%b != 0 {
				return nil, fmt.Errorf("capacity %d tokens is not a multiple of the block size %d tokens", c, b)
			}
		}
		src, done, err := open(b)
		if err != nil {
			return nil, err
		}
		o := opt
		o.BlockSize = b
		res, ideal, err := Replay(src, SweepRuns(entries, capacities), o)
		done()
		if err != nil {
			return nil, fmt.Errorf("block size %d tokens: %w", b, err)
		}
		for _, r := range res {
			out = append(out, SizedResult{BlockTokens: b, Result: r, Ideal: ideal})
		}
	}
	return out, nil
}

// SizedTable lists a block-size sweep: one row per block size, capacity and
// policy.
func SizedTable(res []SizedResult) report.Table {
	t := report.Table{Title: "block-size sweep (canonical trace chained at each B)",
		Header: []string{"B (tokens)", "capacity (tokens)", "policy", "block hit ratio", "token hit ratio", "ideal token hit ratio",
			"mean TTFT (ms)", "P90 (ms)", "P99 (ms)", "TEL (ms)"}}
	for _, r := range res {
		m := r.Summary
		t.Add(report.CellI(r.BlockTokens), report.CellI(r.CapacityTokens), report.CellText(r.Name), report.CellFV(report.Ratio(r.HitBlocks, r.RefBlocks), 4),
			report.CellFV(report.Value(m.HitRatio), 4), report.CellFV(report.Value(r.Ideal.Summary.HitRatio), 4), report.CellF(m.MeanTTFTMs, 2),
			report.CellF(m.P90, 2), report.CellF(m.P99, 2), report.CellF(m.TELMs, 1))
	}
	return t
}

// SizedFigure draws the token hit ratio against the block size, one line
// per policy and capacity, and the infinite cache's.
func SizedFigure(res []SizedResult, title string) plots.Figure {
	f := plots.Figure{Title: title + ": token hit ratio vs block size", XLabel: "block size B (tokens, log)",
		YLabel: "token hit ratio", LogX: true}
	at := map[string]int{}
	var ideal plots.Series
	for _, r := range res {
		name := fmt.Sprintf("%s @ %d", r.Name, r.CapacityTokens)
		i, ok := at[name]
		if !ok {
			i = len(f.Series)
			at[name] = i
			f.Series = append(f.Series, plots.Series{Name: name})
		}
		f.Series[i].X = append(f.Series[i].X, float64(r.BlockTokens))
		f.Series[i].Y = append(f.Series[i].Y, r.Summary.HitRatio)
		if n := len(ideal.X); n == 0 || ideal.X[n-1] != float64(r.BlockTokens) {
			ideal.X = append(ideal.X, float64(r.BlockTokens))
			ideal.Y = append(ideal.Y, r.Ideal.Summary.HitRatio)
		}
	}
	ideal.Name = "infinite cache"
	f.Series = append(f.Series, ideal)
	return f
}

// QueuedTable lists the queued TTFTs of the results that have them (Options.Queue).
func QueuedTable(res []Result) report.Table {
	t := report.Table{Title: "queued TTFT: FIFO prefill queue (--queue-servers servers), service = TTFT of the latency model (ms)",
		Header: []string{"capacity (tokens)", "policy", "mean wait (ms)", "mean QTTFT (ms)", "P50 (ms)", "P90 (ms)", "P95 (ms)", "P99 (ms)", "utilisation"}}
	for _, r := range res {
		if q := r.Queued; q != nil {
			t.Add(report.CellI(r.CapacityTokens), report.CellText(r.Name), report.CellF(q.MeanWait, 2), report.CellF(q.Mean, 2),
				report.CellF(q.P50, 2), report.CellF(q.P90, 2), report.CellF(q.P95, 2), report.CellF(q.P99, 2), report.CellF(q.Utilisation, 3))
		}
	}
	return t
}

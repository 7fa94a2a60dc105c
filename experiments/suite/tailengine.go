package suite

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/trace"
)

// engineTLRU is the record key of the tail-latency paper's engine T-LRU
// (prefixcache's vllm-tlru, the authors' vLLM fork) in the tail-latency
// suite's Mooncake rows, beside the paper's T-LRU ("tlru").
const engineTLRU = "vllm-tlru"

// engineTLRURecord replays the turns of tr, each chained into blocks of
// block tokens (its conversation's history and prompt: blocksim's
// canonical chaining), through the engine T-LRU at capacity tokens with
// N = ξ tokens (its default), and returns its figures as a record of the
// suite: TTFT percentiles, mean, TEL and SLO violations of the same turns
// under the same latency model, from the tokens the engine hit.
func engineTLRURecord(tr *trace.Trace, capacity, block int64, model latency.Model, xiTokens, sloMs float64) (Record, error) {
	ch, err := blocksim.NewChainer(block)
	if err != nil {
		return Record{}, err
	}
	s := &blocktrace.Stream{BlockTokens: int(block)}
	for _, t := range tr.Turns {
		r, err := ch.Request(t)
		if err != nil {
			return Record{}, err
		}
		s.Requests = append(s.Requests, r)
	}
	res, _, err := blocksim.Replay(blocktrace.StreamSource(s), []blocksim.Run{{Name: engineTLRU, New: prefixcache.NewVLLMTLRU, Capacity: capacity}},
		blocksim.Options{Params: instance.Params{BlockSize: block, Xi: xiTokens}, Model: model, SLOMs: sloMs})
	if err != nil {
		return Record{}, fmt.Errorf("%s: %w", engineTLRU, err)
	}
	m := res[0].Summary
	v := map[string]Num{"p50": Num(m.P50), "p90": Num(m.P90), "p95": Num(m.P95), "p99": Num(m.P99),
		"mean_ms": Num(m.MeanTTFTMs), "tel_ms": Num(m.TELMs), "violations": Num(m.Violations)}
	ms, frac := res[0].Metrics.CDF()
	for _, q := range cdfLevels() {
		v[fmt.Sprintf("cdf_%g", q)] = Num(quantileOf(ms, frac, q))
	}
	return Record{Key: engineTLRU, Values: v}, nil
}

package schedule_test

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/schedule"
	"github.com/tailbound/tailbound/models/trace"
)

// The package documentation's worked example: LRU's decision form scores
// 20 + 16 + 24 = 60 uncached tokens (ξ = 0), and a third line claiming 32
// cached tokens breaks the no-growth rule.
func Example() {
	tr := &trace.Trace{}
	tr.Append(0, "a", 20, 12)
	tr.Append(1, "b", 16, 0)
	tr.Append(2, "a", 8, 0)
	o := replay.Options{Params: instance.Params{Capacity: 32, BlockSize: 16, Xi: 0}, Model: latency.Default(), SLOMs: 200}
	for _, text := range []string{
		`{"turn":0,"conv":"a","cached":0,"keep":32}
{"turn":1,"conv":"b","cached":0,"keep":16,"shrink":[["a",16]]}
{"turn":2,"conv":"a","cached":16,"keep":32,"shrink":[["b",0]]}`,
		`{"turn":0,"conv":"a","cached":0,"keep":32}
{"turn":1,"conv":"b","cached":0,"keep":16,"shrink":[["a",16]]}
{"turn":2,"conv":"a","cached":32,"keep":32,"shrink":[["b",0]]}`,
	} {
		s, err := schedule.Read(strings.NewReader(text), "schedule.jsonl")
		if err != nil {
			fmt.Println(err)
			continue
		}
		p, err := s.Policy(tr)
		if err != nil {
			fmt.Println(err)
			continue
		}
		res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: "s", Policy: p}}, o)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("TEL %.0f tokens, %d evictions\n", res[0].Summary.TELTokens, res[0].Evictions)
	}
	// Output:
	// TEL 60 tokens, 2 evictions
	// policy s: turn 2: schedule.jsonl:3: turn 2 (conversation "a"): cached 32 tokens, but the earlier lines leave it 16 (rule: no growth between a conversation's turns)
}

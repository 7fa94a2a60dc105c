package birthdeath

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// FuzzGenRoundTrip draws generator settings (rates, length laws, seed),
// and requires that every accepted setting generates a trace that the
// trace reader reads back turn for turn and the engine replays: the
// generator's own output never crashes the tool (lognormal:43,1 once
// did). Run it longer with:
// go test -run '^$' -fuzz FuzzGenRoundTrip ./models/birthdeath
func FuzzGenRoundTrip(f *testing.F) {
	f.Add(uint64(2), 2.0, 0.01, 0.05, 43.0, 1.0, 300.0, 60.0)
	f.Add(uint64(1), 0.5, 1.0, 3.0, 5.0, 0.0, 1.0, 20.0)
	f.Fuzz(func(t *testing.T, seed uint64, lambda, mu, rate, lnMu, lnSigma, respMean, duration float64) {
		prompt, err := ParseDist(fmt.Sprintf("lognormal:%v,%v", lnMu, lnSigma), "prompt", 1)
		if err != nil {
			return
		}
		resp, err := ParseDist(fmt.Sprintf("geometric:%v", respMean), "response", 0)
		if err != nil {
			return
		}
		p := Params{LambdaConv: lambda, Mu: mu, Classes: []RateClass{{Rate: rate, Weight: 1}},
			Prompt: prompt, Response: resp, Duration: math.Min(math.Abs(duration), 120), MaxTurns: 400}
		if p.Validate() != nil {
			return
		}
		tr, err := Trace(p, seed)
		if err != nil || len(tr.Turns) == 0 {
			return
		}
		var buf bytes.Buffer
		if err := trace.WriteTrace(&buf, tr); err != nil {
			t.Fatal(err)
		}
		back, err := trace.ReadAll(&buf, "generated")
		if err != nil {
			t.Fatalf("the generator wrote a trace its reader refuses: %v", err)
		}
		if !reflect.DeepEqual(back.Turns, tr.Turns) {
			t.Fatal("the trace read back differs from the one generated")
		}
		ip := instance.Params{Capacity: 4096, BlockSize: 16, Xi: 1900}
		pol, _ := policy.NewTLRU(policy.Config{Params: ip})
		if _, err := replay.Replay(replay.SliceSource(back.Turns), []replay.Named{{Name: "tlru", Policy: pol}},
			replay.Options{Params: ip, Model: latency.Default(), SLOMs: latency.DefaultSLOMs}); err != nil {
			t.Fatalf("replay of a generated trace: %v", err)
		}
	})
}

package proofscheck

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/trace"
)

// TestFigure1Command: the two pipelines of Figure 1's command, replayed as
// 'tailbound simulate' would (trace lines and flags read back from the
// line), give the paper's worst cases: LRU leaves 200 tokens uncached, T-LRU
// 150 (A's 100-token history and prompt, less T-LRU's kept 50 tokens).
func TestFigure1Command(t *testing.T) {
	worst := map[string]int64{}
	pipes := strings.Split(figure1Instance{}.Command(), " ; ")
	if len(pipes) != 2 {
		t.Fatalf("%d pipelines, want one per possible third turn", len(pipes))
	}
	for _, pipe := range pipes {
		head, tail, ok := strings.Cut(pipe, " | tailbound simulate --trace - ")
		if !ok {
			t.Fatalf("not a trace piped into simulate: %q", pipe)
		}
		var recs []trace.Record
		for _, m := range regexp.MustCompile(`'(\{[^']*\})'`).FindAllStringSubmatch(head, -1) {
			var r trace.Record
			if err := json.Unmarshal([]byte(m[1]), &r); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
		f := strings.Fields(tail)
		flags := map[string]string{}
		for i := 0; i+1 < len(f); i += 2 {
			flags[strings.TrimPrefix(f[i], "--")] = f[i+1]
		}
		num := func(k string) float64 {
			v, err := strconv.ParseFloat(flags[k], 64)
			if err != nil {
				t.Fatalf("--%s %q: %v", k, flags[k], err)
			}
			return v
		}
		p := instance.Params{Capacity: int64(num("capacity")), BlockSize: int64(num("block-size")), Xi: num("xi-tokens")}
		tr := &trace.Trace{}
		for _, r := range recs {
			tr.Append(r.T, r.Conv, r.Prompt, r.Response)
		}
		for _, name := range strings.Split(flags["policies"], ",") {
			f := map[string]policy.Factory{"lru": policy.NewLRU, "tlru": policy.NewTLRU}[name]
			pol, err := f(policy.Config{Params: p, QHat: num("qhat")})
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: name, Policy: pol}},
				replay.Options{Params: p, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
			if err != nil {
				t.Fatal(err)
			}
			worst[name] = max(worst[name], res[0].Summary.MaxUncached)
		}
	}
	if worst["lru"] != 200 || worst["tlru"] != 150 {
		t.Errorf("worst-case uncached: LRU %d, T-LRU %d tokens; Figure 1 says 200 and 150", worst["lru"], worst["tlru"])
	}
}

// TestLiveCommand: a roofline-live counterexample's command is the
// measurement its instance names.
func TestLiveCommand(t *testing.T) {
	l := &liveInstance{Tier: "disk", Tokens: 1024}
	if got, want := l.Command(), "tailbound recompute measure --tiers disk --tokens 1024"; got != want || l.Export().(map[string]any)["command"] != want {
		t.Errorf("command %q (export %q), want %q", got, l.Export().(map[string]any)["command"], want)
	}
}

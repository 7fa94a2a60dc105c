package blocksim_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailbound/tailbound/experiments/blocksim"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/blockext"
	"github.com/tailbound/tailbound/models/blocktrace"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/prefixcache"
	"github.com/tailbound/tailbound/models/schedule"
)

// chained returns the embedded workload (10 minutes of births) chained
// into 16-token blocks, in memory.
func chained(t testing.TB) *blocktrace.Stream {
	t.Helper()
	p := birthdeath.Default()
	p.Duration = 600
	tr, err := birthdeath.Trace(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, err := blocksim.NewChainer(16)
	if err != nil {
		t.Fatal(err)
	}
	s := &blocktrace.Stream{BlockTokens: 16}
	for _, turn := range tr.Turns {
		r, err := c.Request(turn)
		if err != nil {
			t.Fatal(err)
		}
		s.Requests = append(s.Requests, r)
	}
	return s
}

// TestBlockRoundTrip: for every registered block policy, --emit-schedule
// then --schedule reproduces its figures exactly (hits, evictions, TEL,
// TTFT), on the chained embedded workload and on the Mooncake conversation
// trace.
func TestBlockRoundTrip(t *testing.T) {
	cases := []struct {
		name     string
		stream   func(testing.TB) *blocktrace.Stream
		capacity int64
	}{
		{"embedded", chained, 16 * 2048},
		{"mooncake", func(tb testing.TB) *blocktrace.Stream { return loadMooncake(tb, "conversation_trace.jsonl") }, 512 << 12},
	}
	var all []prefixcache.Entry // the tree policies: an engine has no schedule of victims
	for _, e := range prefixcache.All() {
		if p, err := e.New(prefixcache.Config{Params: instance.Params{Capacity: 16, BlockSize: 16}}); err == nil {
			if _, engine := p.(prefixcache.Engine); !engine {
				all = append(all, e)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.stream(t)
			dir := t.TempDir()
			opt := blocksim.Options{Params: instance.Params{BlockSize: int64(s.BlockTokens), Xi: 1500}, Model: latency.Default(), SLOMs: 200}
			want, _, err := blocksim.ReplayExternal(blocktrace.StreamSource(s), all, []int64{c.capacity}, opt,
				blocksim.External{EmitSchedule: filepath.Join(dir, "b.jsonl")})
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, e := range all {
				paths = append(paths, schedule.Path(filepath.Join(dir, "b.jsonl"), e.Name, true))
			}
			scheds, err := blockext.ReadFiles(paths)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := blocksim.ReplayExternal(blocktrace.StreamSource(s), nil, []int64{c.capacity}, opt, blocksim.External{Schedules: scheds})
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range want {
				g := got[i]
				if g.Summary != w.Summary || g.HitBlocks != w.HitBlocks || g.Evictions != w.Evictions || g.Requests != w.Requests {
					t.Errorf("%s: schedule %+v (%d hit blocks, %d evictions); policy %+v (%d, %d)", w.Name, g.Summary, g.HitBlocks, g.Evictions,
						w.Summary, w.HitBlocks, w.Evictions)
				}
				if w.Evictions == 0 {
					t.Errorf("%s evicts nothing: the round trip is vacuous", w.Name)
				}
			}
		})
	}
}

// tinyStream: B = 1 token, capacity 2 blocks. Request 0 admits chain
// [a0 a1] (ids 0, 1); request 1, chain [b0] (id 2), must evict one block,
// and only the leaf 1 is evictable (0 has a cached child); request 2,
// chain [a0 a1 a2] with a0 cached, needs two blocks for a1 a2 (ids 1, 3)
// with one free: it must evict 2, as 0 is the pinned hit prefix.
func tinyStream() *blocktrace.Stream {
	return &blocktrace.Stream{BlockTokens: 1, Requests: []blocktrace.Request{
		{Input: 2, Hashes: []int64{10, 11}, Conv: -1},
		{Input: 1, Hashes: []int64{20}, Time: 1, Conv: -1},
		{Input: 3, Hashes: []int64{10, 11, 12}, Time: 2, Conv: -1},
	}}
}

// TestBlockViolations: the prefix rule and the capacity rule broken once
// each, a wrong request count and a truncated file, each one line naming
// the line, the request and the rule.
func TestBlockViolations(t *testing.T) {
	good := "{}\n{\"evict\":[1]}\n{\"evict\":[2]}\n"
	cases := []struct {
		name, text string
		want       []string
	}{
		{"good", good, nil},
		{"parent first", "{}\n{\"evict\":[0]}\n{\"evict\":[2]}\n", []string{"s.jsonl:2: request 1: block 0 has a cached child", "rule: prefix"}},
		{"pinned", "{}\n{\"evict\":[1]}\n{\"evict\":[0]}\n", []string{"s.jsonl:3: request 2: block 0 ends the request's hit prefix", "rule: prefix"}},
		{"not cached", "{}\n{\"evict\":[1]}\n{\"evict\":[7]}\n", []string{"request 2: block 7 is not cached", "rule: prefix"}},
		{"too few", "{}\n{}\n{\"evict\":[2]}\n", []string{"s.jsonl:2: request 1: evicts 0 blocks, but the cache needs room", "rule: capacity"}},
		{"too many", "{\"evict\":[]}\n{\"evict\":[1,0]}\n{\"evict\":[2]}\n", []string{"s.jsonl:2: request 1: evicts 2 blocks, but the cache needed 1", "rule: capacity"}},
		{"short", "{}\n{\"evict\":[1]}\n", []string{"s.jsonl: 2 lines, but the trace has more requests (wrong request count)"}},
		{"long", good + "{}\n", []string{"s.jsonl: 4 lines for a trace of 3 requests (wrong request count)"}},
		{"truncated", good[:len(good)-5], []string{"s.jsonl:3: not a block schedule line"}},
	}
	for _, c := range cases {
		sch, err := blockext.Read(strings.NewReader(c.text), "s.jsonl")
		if err == nil {
			_, _, err = blocksim.ReplayExternal(blocktrace.StreamSource(tinyStream()), nil, []int64{2}, blocksim.Options{Params: instance.Params{BlockSize: 1}, Model: latency.Default(), SLOMs: 200},
				blocksim.External{Schedules: []*blockext.Schedule{sch}})
		}
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", c.name, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
	}
}

// pyClient returns the reference client's path, or skips without python3.
func pyClient(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH: the reference client examples/exec_policy.py cannot run (install python3 to run this test)")
	}
	p, err := filepath.Abs("../../examples/exec_policy.py")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBlockExec: the reference client's block-lru through exec: equals the
// built-in block LRU on the chained embedded workload, every figure.
func TestBlockExec(t *testing.T) {
	py := pyClient(t)
	s := chained(t)
	fin := &blockext.Finishers{}
	entries, err := blockext.Parse("lru,exec:python3 "+py+" block-lru", execpolicy.Options{}, fin.Add)
	if err != nil {
		t.Fatal(err)
	}
	opt := blocksim.Options{Params: instance.Params{BlockSize: 16, Xi: 1500}, Model: latency.Default(), SLOMs: 200}
	res, _, err := blocksim.ReplayExternal(blocktrace.StreamSource(s), entries, []int64{16 * 2048}, opt, blocksim.External{Finishers: fin})
	if err != nil {
		t.Fatal(err)
	}
	w, g := res[0], res[1]
	if g.Summary != w.Summary || g.HitBlocks != w.HitBlocks || g.Evictions != w.Evictions || w.Evictions == 0 {
		t.Errorf("exec %+v (%d hit blocks, %d evictions); lru %+v (%d, %d)", g.Summary, g.HitBlocks, g.Evictions, w.Summary, w.HitBlocks, w.Evictions)
	}
}

// TestBlockExecBadAnswers: a bad victim, a malformed answer and a process
// that dies each give one line naming the request and the rule.
func TestBlockExecBadAnswers(t *testing.T) {
	const first = `read h; read r; echo '{}'; read r; `
	for _, c := range []struct{ name, script, want string }{
		{"prefix", first + `echo '{"evict":[0]}'; cat >/dev/null`, "request 1: block 0 has a cached child (rule: prefix"},
		{"capacity", first + `echo '{"evict":[]}'; cat >/dev/null`, "request 1: evicts 0 blocks, but the cache needs room"},
		{"not json", first + `echo 'evict all'; cat >/dev/null`, `request 1: answer "evict all" is not {"evict":[block ids]}`},
		{"dies", first + `exit 2`, "request 1: the process ended before answering (exit status 2"},
		{"stalls", first + `sleep 30`, "request 1: no answer within 300ms"},
	} {
		fin := &blockext.Finishers{}
		entries, err := blockext.Parse("exec:"+c.script, execpolicy.Options{Timeout: 300 * time.Millisecond}, fin.Add)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = blocksim.ReplayExternal(blocktrace.StreamSource(tinyStream()), entries, []int64{2},
			blocksim.Options{Params: instance.Params{BlockSize: 1}, Model: latency.Default(), SLOMs: 200}, blocksim.External{Finishers: fin})
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want one line with %q", c.name, err, c.want)
		}
	}
}

// TestEmitScheduleRefusesEngines: an engine's cache (vllm) evicts from its
// own pool, not prefix-tree leaves, so --emit-schedule refuses it with one
// line naming the flag.
func TestEmitScheduleRefusesEngines(t *testing.T) {
	es, err := prefixcache.Parse("vllm")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = blocksim.ReplayExternal(blocktrace.StreamSource(tinyStream()), es, []int64{2},
		blocksim.Options{Params: instance.Params{BlockSize: 1}, Model: latency.Default(), SLOMs: 200},
		blocksim.External{EmitSchedule: filepath.Join(t.TempDir(), "s.jsonl")})
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "--emit-schedule") || !strings.Contains(err.Error(), "vllm") {
		t.Fatalf("got %v; want one line naming --emit-schedule and vllm", err)
	}
}

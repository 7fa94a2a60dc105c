package windows_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/blocktail"
	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/suite"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/models/latency"
)

// blockCommand is 'solve --level block --windows 2' on the hand-worked
// trace of lp/prefixtail's TestWindowedHandWorked (B = 512, C = 4 blocks,
// ξ = 200 tokens; OPT = 1,336).
func blockCommand() blocktail.Command {
	return blocktail.Command{Trace: filepath.Join("..", "..", "examples", "block", "tail-example.jsonl"), TraceFormat: "mooncake", Block: 16,
		Capacities: "2048", Objective: "tel", Model: latency.Default(), XiTokens: 200, LPSolver: "lagrangian", IPSolver: "none", Policies: "none",
		Format: "csv", Windows: 2}
}

// blockShards runs c as n shards and merges them with the suites' checks.
func blockShards(t *testing.T, c blocktail.Command, n int) (*suite.File, string) {
	t.Helper()
	var files []string
	for i := 1; i <= n; i++ {
		sh := c
		sh.Shard, sh.Out = fmt.Sprintf("%d/%d", i, n), filepath.Join(t.TempDir(), "shard.json")
		if err := windows.RunBlock(context.Background(), nil, sh); err != nil {
			t.Fatal(err)
		}
		files = append(files, sh.Out)
	}
	f, err := suite.ReadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := windows.RenderBlock(&got, f, "csv"); err != nil {
		t.Fatal(err)
	}
	return f, got.String()
}

// TestBlockShards: one shard (1/1), merged, prints the one-process run's
// CSV ([1,336, 1,648], worked out in TestWindowedHandWorked); two shards
// keep the lower bound 1,336 (the same relaxations) and replay each
// window from an empty cache, 1,336 each: upper 2,672, the sum of the
// restrictions (each run is one window). A shard of another capacity is
// refused, naming capacity_tokens.
func TestBlockShards(t *testing.T) {
	c := blockCommand()
	want := oneProcessCSV(t, c)
	if _, got := blockShards(t, c, 1); got != want {
		t.Fatalf("one shard merged:\n%s\none process:\n%s", got, want)
	}
	if !strings.Contains(want, ",lower,1336\n") || !strings.Contains(want, ",upper,1648\n") {
		t.Fatalf("one process: %s", want)
	}
	f, got := blockShards(t, c, 2)
	var j bytes.Buffer
	if err := windows.RenderBlock(&j, f, "json"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"lower_bound": 1336`, `"upper_bound": 2672`, `"runs": 2`} {
		if !strings.Contains(j.String(), s) {
			t.Fatalf("two shards: no %s in\n%s\n%s", s, j.String(), got)
		}
	}
	other := c
	other.Capacities, other.Shard, other.Out = "2560", "2/2", filepath.Join(t.TempDir(), "other.json")
	if err := windows.RunBlock(context.Background(), nil, other); err != nil {
		t.Fatal(err)
	}
	first := c
	first.Shard, first.Out = "1/2", filepath.Join(t.TempDir(), "first.json")
	if err := windows.RunBlock(context.Background(), nil, first); err != nil {
		t.Fatal(err)
	}
	if _, err := suite.ReadFiles([]string{first.Out, other.Out}); err == nil || !strings.Contains(err.Error(), "capacity_tokens") {
		t.Fatalf("merge of another capacity: %v", err)
	}
	bad := c
	bad.Shard, bad.Slurm = "1/2", 2
	if err := windows.RunBlock(context.Background(), nil, bad); err == nil || !strings.Contains(err.Error(), "--slurm") {
		t.Fatalf("--shard with --slurm: %v", err)
	}
}

// TestBlockShardsJoined: examples/block/join-example.jsonl (one-block
// requests [1] [2] [1] [2] of 512 tokens, C = 2 blocks, ξ = 200 tokens;
// lp/prefixtail's TestWindowedJoinHandWorked works it out: OPT = 624) in
// two windows as two shards: without a join each run replays from an
// empty cache, 624 + 624 = 1,248; joined over ±1 request, run 0 counts
// requests 0–2 (624) and run 1 starts warm and counts request 3 (0): the
// merged interval is [624, 624], proven. The join's width is in the
// settings: a shard joined differently is refused, naming join_requests.
func TestBlockShardsJoined(t *testing.T) {
	c := blockCommand()
	c.Trace, c.Capacities = filepath.Join("..", "..", "examples", "block", "join-example.jsonl"), "1024"
	for _, tc := range []struct {
		join  int
		upper string
	}{{0, `"upper_bound": 1248`}, {1, `"upper_bound": 624`}} {
		c.JoinRequests = tc.join
		f, _ := blockShards(t, c, 2)
		var j bytes.Buffer
		if err := windows.RenderBlock(&j, f, "json"); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{`"lower_bound": 624`, tc.upper, `"runs": 2`} {
			if !strings.Contains(j.String(), s) {
				t.Fatalf("join ±%d: no %s in\n%s", tc.join, s, j.String())
			}
		}
	}
	a, b := c, c
	a.JoinRequests, a.Shard, a.Out = 1, "1/2", filepath.Join(t.TempDir(), "a.json")
	b.JoinRequests, b.Shard, b.Out = 0, "2/2", filepath.Join(t.TempDir(), "b.json")
	for _, x := range []blocktail.Command{a, b} {
		if err := windows.RunBlock(context.Background(), nil, x); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := suite.ReadFiles([]string{a.Out, b.Out}); err == nil || !strings.Contains(err.Error(), "join_requests") {
		t.Fatalf("merge of two joins: %v", err)
	}
}

// TestBlockShardsCountLines: a shard counts its file's requests by its
// non-blank lines without parsing them. With blank lines between the
// requests the shards still merge to the one-process interval of the
// hand-worked trace ([1,336, 2,672] as two shards, TestBlockShards); a bad
// line after the first shard's run fails only the shard that reads it
// (the last, which reads to the end), with the one-line file:line:field
// error and no result file, so the shards cannot be merged.
func TestBlockShardsCountLines(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "block", "tail-example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(src), "\n"), "\n")
	dir := t.TempDir()
	spaced := filepath.Join(dir, "spaced.jsonl")
	if err := os.WriteFile(spaced, []byte("\n"+strings.Join(lines, "  \n\t\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := blockCommand()
	c.Trace = spaced
	f, _ := blockShards(t, c, 2)
	var j bytes.Buffer
	if err := windows.RenderBlock(&j, f, "json"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"lower_bound": 1336`, `"upper_bound": 2672`, `"requests": 5`} {
		if !strings.Contains(j.String(), s) {
			t.Fatalf("blank lines: no %s in\n%s", s, j.String())
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	broken := slices.Clone(lines)
	broken[4] = strings.Replace(broken[4], `"input_length": `, `"input_length": -`, 1)
	if err := os.WriteFile(bad, []byte(strings.Join(broken, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Trace = bad
	for i, want := range []string{"", bad + `:5: field "input_length"`} {
		sh := c
		sh.Shard, sh.Out = fmt.Sprintf("%d/2", i+1), filepath.Join(dir, fmt.Sprintf("bad%d.json", i))
		err := windows.RunBlock(context.Background(), nil, sh)
		_, statErr := os.Stat(sh.Out)
		switch {
		case want == "" && err != nil:
			t.Errorf("shard %d/2 ends before the bad line: %v", i+1, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || statErr == nil):
			t.Errorf("shard %d/2: got %v (file written: %v), want one line with %q and no file", i+1, err, statErr == nil, want)
		}
	}
}

// oneProcessCSV is c's output in one process ('solve --level block
// --windows'), as CSV: what a merge of its shards must print.
func oneProcessCSV(t *testing.T, c blocktail.Command) string {
	t.Helper()
	doc, tables, err := c.Solve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.Emit(&want, "csv", doc, tables...); err != nil {
		t.Fatal(err)
	}
	return want.String()
}

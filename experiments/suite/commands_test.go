package suite

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFromArgs(t *testing.T) {
	s, rest, err := FromArgs("plot", []string{"recompute", "--small"})
	if err != nil || s.Name != "recompute" || !reflect.DeepEqual(rest, []string{"--small"}) {
		t.Errorf("FromArgs = %v, %v, %v", s, rest, err)
	}
	for _, args := range [][]string{nil, {"--small"}} {
		if _, _, err := FromArgs("plot", args); err == nil || err.Error() != "usage: tailbound plot SUITE [flags] (tailbound tables --list names the suites)" {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, _, err := FromArgs("tables", []string{"nosuch"}); err == nil || !strings.HasPrefix(err.Error(), `unknown suite "nosuch"`) {
		t.Errorf("unknown suite: %v", err)
	}
}

func TestList(t *testing.T) {
	doc, tab := List()
	suites := doc.(map[string]any)["suites"].([]map[string]any)
	if len(tab.Rows) != 5 || len(suites) != 5 || tab.Rows[0][0] != "tail-latency" || suites[4]["name"] != "recompute" {
		t.Errorf("rows %v", tab.Rows)
	}
}

// TestWithGiven: only the suite's own parameters among the given flags
// become Params, over those already set; Params is never nil.
func TestWithGiven(t *testing.T) {
	s := Recompute()
	o := s.withGiven(Options{Params: map[string]string{"chunk": "256"}}, []string{"--small=true", "--tokens=4096,8192", "--to-ms=a=b"})
	if want := map[string]string{"chunk": "256", "tokens": "4096,8192", "to-ms": "a=b"}; !reflect.DeepEqual(o.Params, want) {
		t.Errorf("Params %v, want %v", o.Params, want)
	}
	if o := s.withGiven(Options{}, nil); o.Params == nil || len(o.Params) != 0 {
		t.Errorf("Params %#v, want an empty map", o.Params)
	}
}

// TestTablesRefused: the flag combinations tables refuses, each naming
// its flag, before anything runs.
func TestTablesRefused(t *testing.T) {
	for _, c := range []struct {
		o    TablesOptions
		want string
	}{
		{TablesOptions{Format: "html", Seeds: "3"}, `flag --format: unknown format "html" (want table|markdown|csv|json|latex)`},
		{TablesOptions{Format: "table", Seeds: "3", Shard: "1/2"}, "flag --seeds: not with --shard or --slurm"},
		{TablesOptions{Format: "table", Seeds: "3", Slurm: 2}, "flag --seeds: not with --shard or --slurm"},
		{TablesOptions{Format: "table", Shard: "4/3"}, `flag --shard: want i/n with 1 ≤ i ≤ n, got "4/3"`},
		{TablesOptions{Format: "table", Out: "x.json"}, "flag --out: only with --shard (the result file of a shard)"},
		{TablesOptions{Format: "table", Slurm: -1}, "flag --slurm: want a number of shards ≥ 1, got -1"},
		{TablesOptions{Format: "table", Slurm: 2, Shard: "1/2"}, "flag --shard: not with --slurm (the script runs every shard)"},
		{TablesOptions{Format: "table", Slurm: 2, Out: "-"}, "flag --out: with --slurm, a file for the merged output (the merge job has no standard output to show)"},
	} {
		var out bytes.Buffer
		if err := Tables(context.Background(), Recompute(), c.o, &out); err == nil || err.Error() != c.want || out.Len() != 0 {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
}

// TestTablesSlurm: the script repeats the given flags but those that
// choose the output (--slurm, --shard, --out, --format); each submission
// writes its shards into a folder of its own, the merge is a job that
// depends on the whole array (no lock folder, no "last task merges"),
// and --out is where the merged output goes (issue 26, item 5).
func TestTablesSlurm(t *testing.T) {
	var out bytes.Buffer
	o := TablesOptions{Format: "csv", Slurm: 2, Out: "res dir/r.csv", Given: []string{"--tokens=4096", "--slurm=2", "--format=csv", "--small=true", "--out=res dir/r.csv"}}
	if err := Tables(context.Background(), Recompute(), o, &out); err != nil {
		t.Fatal(err)
	}
	script := out.String()
	for _, want := range []string{
		`tables recompute --tokens=4096 --small=true --shard "$I/2" --out "$RUN/shard-$I.json"`,
		`RUN="$OUT/run-$SLURM_ARRAY_JOB_ID"`,
		`--dependency="afterok:$SLURM_ARRAY_JOB_ID"`,
		"--kill-on-invalid-dep=yes",
		"--format csv",
		`RESULT=${RESULT:-'res dir/r.csv'}`,
		"for i in $(seq 1 2)",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("script lacks %q:\n%s", want, script)
		}
	}
	for _, bad := range []string{".merge", "shard-*.json", "--out=res"} {
		if strings.Contains(script, bad) {
			t.Errorf("script has %q:\n%s", bad, script)
		}
	}
	out.Reset()
	if err := Tables(context.Background(), Recompute(), TablesOptions{Format: "json", Slurm: 3}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "RESULT=${RESULT:-$OUT/recompute.json}") {
		t.Errorf("default merged output:\n%s", out.String())
	}
}

// TestShardFileMerge: two shard files written by Tables merge into the
// unsharded run's output.
func TestShardFileMerge(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	run := Options{Small: true, Workers: 1}
	var whole bytes.Buffer
	if err := Tables(ctx, Recompute(), TablesOptions{Run: run, Format: "markdown"}, &whole); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, sh := range []string{"1/2", "2/2"} {
		f := filepath.Join(dir, "shard-"+sh[:1]+".json")
		if err := Tables(ctx, Recompute(), TablesOptions{Run: run, Format: "table", Shard: sh, Out: f}, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged := filepath.Join(dir, "merged.json")
	var out bytes.Buffer
	if err := MergeFiles(ctx, MergeOptions{Files: files, Format: "markdown", Out: merged}, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != whole.String() {
		t.Errorf("merged\n%s\nunsharded\n%s", out.String(), whole.String())
	}
	if _, err := os.Stat(merged); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		o    MergeOptions
		want string
	}{
		{MergeOptions{Format: "table"}, "usage: tailbound merge FILE... (the result files of tables SUITE --shard i/n)"},
		{MergeOptions{Files: files, Format: "html"}, `flag --format: unknown format "html"`},
		{MergeOptions{Files: files[:1], Format: "table"}, "merge: grid points"},
	} {
		if err := MergeFiles(ctx, c.o, &bytes.Buffer{}); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestPlot: one file per figure, named SUITE-STEM.EXT and listed on
// stdout; an unknown format is refused.
func TestPlot(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Plot(context.Background(), Recompute(), PlotOptions{Run: Options{Small: true, Workers: 1}, Dir: dir, Ext: "svg"}, &out); err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(out.String())
	entries, _ := os.ReadDir(dir)
	if len(paths) == 0 || len(paths) != len(entries) {
		t.Fatalf("printed %v, wrote %d files", paths, len(entries))
	}
	for _, p := range paths {
		if filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "recompute-") || filepath.Ext(p) != ".svg" {
			t.Errorf("path %s", p)
		}
	}
	if err := Plot(context.Background(), Recompute(), PlotOptions{Dir: dir, Ext: "gif"}, &out); err == nil || err.Error() != `flag --ext: want svg, png or pdf, got "gif"` {
		t.Errorf("gif: %v", err)
	}
}

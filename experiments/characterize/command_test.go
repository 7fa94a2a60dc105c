package characterize

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// traceOptions are characterize's flag defaults for one trace file.
func traceOptions(path, format string) TraceOptions {
	return TraceOptions{Args: []string{path}, TraceFormat: format, BlockSize: 16, MaxTurn: 5, Hubs: 10, SharedShare: 0.05,
		HBMReserve: 0.1, KVModel: "qwen2-7b", Format: "table", Importer: importer.Settings{Chain: "ceil", MinSharedBlocks: 1}}
}

// TestTraceCanonical: conversation a is (p, r) = (10, 5), (4, 2) and b is
// (3, 0): three requests, one linked, two conversations; figures are
// named after the file and listed on the log.
func TestTraceCanonical(t *testing.T) {
	dir := t.TempDir()
	path := fixture(t, "hand.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}
{"t": 1, "conv": "b", "prompt": 3, "response": 0}
{"t": 2, "conv": "a", "prompt": 4, "response": 2}
`)
	o := traceOptions(path, "canonical")
	o.BlockSize, o.PlotDir = 4, dir
	var log bytes.Buffer
	doc, tables, err := Trace(o, &log)
	if err != nil {
		t.Fatal(err)
	}
	d := doc.(traceDoc)
	if d.Requests != 3 || d.Linked != 1 || d.Conversations != 2 || d.Turns == nil || d.KV != nil || d.File != path || len(tables) == 0 {
		t.Errorf("document %+v", d)
	}
	if !strings.Contains(log.String(), "wrote "+filepath.Join(dir, "hand-reuse.svg")+"\n") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestTraceRefused: the checks in the command's order, each naming its
// flag.
func TestTraceRefused(t *testing.T) {
	path := fixture(t, "hand.jsonl", `{"t": 0, "conv": "a", "prompt": 10, "response": 5}`+"\n")
	with := func(f func(*TraceOptions)) TraceOptions {
		o := traceOptions(path, "mooncake")
		f(&o)
		return o
	}
	for _, c := range []struct {
		o    TraceOptions
		want string
	}{
		{with(func(o *TraceOptions) { o.Args = nil }), "want exactly one TRACE file argument (see --help)"},
		{with(func(o *TraceOptions) { o.Format, o.TraceFormat = "xml", "" }), `flag --format: unknown format "xml"`},
		{with(func(o *TraceOptions) { o.TraceFormat = "" }), "flag --trace-format: required (canonical|mooncake|bailian|blocks)"},
		{with(func(o *TraceOptions) { o.MaxTurn, o.Hubs = 0, 0 }), "flag --max-turn: 0 must be ≥ 1"},
		{with(func(o *TraceOptions) { o.Hubs = 0 }), "flag --hubs: 0 must be ≥ 1"},
		{with(func(o *TraceOptions) { o.SharedShare = 0 }), "flag --shared-share: 0 must be in (0, 1]"},
		{with(func(o *TraceOptions) { o.Importer.Chain = "round" }), "flag --chain-length: "},
		{with(func(o *TraceOptions) { o.KVModel = "gpt-9" }), "flag --kv-model: "},
		{with(func(o *TraceOptions) { o.PlotDir = path }), "flag --plot-dir: " + path + " is not a directory"},
		{with(func(o *TraceOptions) { o.GPU = "tpu" }), "flag --gpu: "},
		{with(func(o *TraceOptions) { o.GPU, o.KVModel, o.GPUs = "a100-40gb", "llama-3-70b", 1 }), "flags --gpu, --gpus, --hbm-reserve: "},
		{with(func(o *TraceOptions) { o.TraceFormat, o.BlockSize = "canonical", 0 }), "flag --block-size: 0 must be ≥ 1 token"},
		{with(func(o *TraceOptions) { o.TraceFormat = "csv" }), `flag --trace-format: trace format "csv"`},
		{with(func(*TraceOptions) {}), path + `:1: field "timestamp"`},
	} {
		_, _, err := Trace(c.o, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

package birthdeath

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/trace"
)

// TestGen: the trace written is Trace(Params, seed), and the deaths file
// has one line per conversation of it.
func TestGen(t *testing.T) {
	deaths := filepath.Join(t.TempDir(), "d.jsonl")
	o := GenOptions{Model: DefaultFlags(), Seed: 4, Deaths: deaths}
	var out bytes.Buffer
	if err := Gen(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	got, err := trace.ReadAll(&out, "gen")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Trace(Default(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) == 0 || len(got.Turns) != len(want.Turns) || got.Turns[len(got.Turns)-1] != want.Turns[len(want.Turns)-1] {
		t.Errorf("%d turns written, Trace has %d", len(got.Turns), len(want.Turns))
	}
	f, err := os.Open(deaths)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := ReadDeaths(f, deaths)
	if err != nil || len(ds) != got.Conversations() {
		t.Errorf("%d deaths (%v), %d conversations", len(ds), err, got.Conversations())
	}
}

// TestGenBadDeathsPath: nothing reaches stdout when the deaths file cannot
// be created.
func TestGenBadDeathsPath(t *testing.T) {
	var out bytes.Buffer
	err := Gen(context.Background(), GenOptions{Model: DefaultFlags(), Deaths: "/nonexistent-dir/d.jsonl"}, &out)
	if err == nil || !strings.HasPrefix(err.Error(), "flag --deaths: ") || out.Len() != 0 {
		t.Errorf("error %v, %d bytes written", err, out.Len())
	}
}

// TestGenTimestamps: --trace is required; the turns keep their
// conversations and order.
func TestGenTimestamps(t *testing.T) {
	ctx := context.Background()
	var out bytes.Buffer
	if err := GenTimestamps(ctx, TimestampOptions{LambdaConv: 1, Rates: "0.1:1"}, &out); err == nil || err.Error() != "flag --trace: required" {
		t.Errorf("no --trace: %v", err)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, []byte("{\"conv\":\"a\",\"prompt\":1,\"response\":0}\n{\"conv\":\"b\",\"prompt\":2,\"response\":0}\n{\"conv\":\"a\",\"prompt\":3,\"response\":0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := GenTimestamps(ctx, TimestampOptions{Trace: in, LambdaConv: 1, Rates: "x"}, &out); err == nil || !strings.HasPrefix(err.Error(), "flag --rates: ") {
		t.Errorf("bad --rates: %v", err)
	}
	if err := GenTimestamps(ctx, TimestampOptions{Trace: in, LambdaConv: 1, Gamma: "2:0.1", Seed: 3}, &out); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReadAll(&out, "out")
	if err != nil {
		t.Fatal(err)
	}
	var a []int64
	for _, u := range tr.Turns {
		if tr.Names[u.Conv] == "a" {
			a = append(a, u.Prompt)
		}
	}
	if len(tr.Turns) != 3 || len(a) != 2 || a[0] != 1 || a[1] != 3 {
		t.Errorf("turns of a: %v of %d", a, len(tr.Turns))
	}
}

package fits

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
	"github.com/tailbound/tailbound/models/prefixgen"
)

// TestPrefixTwin fits a generated trace and checks the wiring: the twin
// on stdout is the same for the same seed, spans the trace (no request
// after its last), and the report's side-by-side table gives the trace's
// request count and ideal block hit ratio as counted here directly
// (1 − distinct blocks/block references).
func TestPrefixTwin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prefixgen.Write(context.Background(), prefixgen.GenOptions{Model: prefixgen.Cluster(), Seed: 4, Requests: 3000}, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	o := PrefixOptions{Fit: path, TraceFormat: "mooncake", Seed: 9, Importer: importer.Settings{Chain: "ceil", MinSharedBlocks: 1}}
	var out1, out2, rep bytes.Buffer
	if err := Prefix(context.Background(), o, &out1, &rep); err != nil {
		t.Fatal(err)
	}
	if err := Prefix(context.Background(), o, &out2, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	if out1.String() != out2.String() || out1.Len() == 0 {
		t.Fatal("the twin differs between two runs with one seed")
	}
	// A twin longer than the trace: written whole, compared over the
	// trace's span only (the pipe to the analysis is drained past it).
	long := o
	long.Requests = 20000
	var outLong bytes.Buffer
	if err := Prefix(context.Background(), long, &outLong, new(bytes.Buffer)); err != nil {
		t.Fatalf("a twin of 20,000 requests: %v", err)
	}
	if n := strings.Count(outLong.String(), "\n"); n != 20000 {
		t.Errorf("a twin of 20,000 requests has %d lines", n)
	}
	src, cl, err := importer.Open(path, "mooncake", importer.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	seen := map[int64]bool{}
	var refs, last float64
	n := 0
	for {
		r, err := src.Next()
		if err != nil {
			break
		}
		n++
		last = r.Time
		for _, h := range r.Hashes {
			refs++
			seen[h] = true
		}
	}
	ideal := 1 - float64(len(seen))/refs
	twin, err := importer.ReadAll(importer.NewMooncake(strings.NewReader(out1.String()), "twin", importer.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if tl := twin.Requests[len(twin.Requests)-1].Time; tl > last {
		t.Errorf("twin's last request at %v s, after the trace's %v s", tl, last)
	}
	report := rep.String()
	for _, want := range []string{
		"| requests | " + itoa(n) + " | " + itoa(len(twin.Requests)) + " |",
		"| ideal block hit ratio | " + f4(ideal) + " |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

package blockgap

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
	"github.com/tailbound/tailbound/models/latency"
)

// mooncakeFile writes single-block requests with the hash ids of hashes,
// 512 tokens each, as a Mooncake trace.
func mooncakeFile(t *testing.T, hashes ...int) string {
	t.Helper()
	var b strings.Builder
	for i, h := range hashes {
		b.WriteString(`{"timestamp": ` + strconv.Itoa(i) + `, "input_length": 512, "output_length": 1, "hash_ids": [` + strconv.Itoa(h) + "]}\n")
	}
	p := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validBlock is a block-level command every refusal case changes in one way.
func validBlock(trace string) Command {
	return Command{Trace: trace, TraceFormat: "mooncake", Format: "table", Policies: "lru", Capacities: "1024",
		AlphaMs: 0.1, Block: 16, LPSolver: "gonum", IPSolver: "gonum"}
}

func TestCommandRefusals(t *testing.T) {
	tr := mooncakeFile(t, 1)
	for _, tc := range []struct {
		name  string
		edit  func(*Command)
		flags []string
		msg   string
	}{
		{"no trace", func(c *Command) { c.Trace = "" }, []string{"trace", "capacities"}, "flags --trace and --capacities: both required at block level"},
		{"bad capacity", func(c *Command) { c.Capacities = "1k" }, []string{"capacities"}, `flag --capacities: "1k" is not an integer`},
		{"alpha 0", func(c *Command) { c.AlphaMs = 0 }, []string{"alpha-ms"}, "flag --alpha-ms: alpha must be a finite number > 0 ms/token, got 0"},
		{"two xis", func(c *Command) { c.Xis = []float64{1, 2} }, []string{"xis"}, "flag --xis: one threshold at block level (the tail-aware policies' ξ, tokens)"},
		{"negative time limit", func(c *Command) { c.TimeLimit = -1 }, []string{"time-limit"}, "flag --time-limit: must be 0 (no limit) or between 0.001 and 1e+06 seconds, got -1"},
	} {
		c := validBlock(tr)
		tc.edit(&c)
		_, _, err := c.Run(context.Background())
		var oe *option.Error
		if !errors.As(err, &oe) || !reflect.DeepEqual(oe.Flags, tc.flags) || err.Error() != tc.msg {
			t.Errorf("%s: got %v; want %v, %q", tc.name, err, tc.flags, tc.msg)
		}
	}
	c := validBlock(tr)
	c.Policies = "nope"
	if _, _, err := c.Run(context.Background()); err == nil || !strings.HasPrefix(err.Error(), `flag --policies: unknown block policy "nope"`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// TestCommandXi: the tail-aware policies' ξ is the one --xis value, or
// ξ_s = 200 ms converted with β = 10 ms and α: (200 − 10)/α tokens.
func TestCommandXi(t *testing.T) {
	for _, tc := range []struct {
		xis   []float64
		alpha float64
		want  float64
	}{
		{nil, 0.1, 1900},
		{nil, 0.5, 380},
		{[]float64{7}, 0.1, 7},
	} {
		c := Command{Xis: tc.xis}
		m := latency.Default()
		m.AlphaMs = tc.alpha
		if got, err := c.xi(m); err != nil || got != tc.want {
			t.Errorf("xis %v, α %v: got %v, %v; want %v", tc.xis, tc.alpha, got, err, tc.want)
		}
	}
}

// TestCommandHandWorked: single-block chains 1 2 3 1 at a capacity of 2
// blocks (1,024 tokens of 512-token blocks). LRU evicts 1 for 3 and misses
// all four; the optimum evicts 2 (never used again) and hits 1 at the end:
// 3 misses, which the LP and the IP both reach (width 0). LRU's relative
// gap 1/3 shows as 33.3% and is written to CSV as its fraction, unrounded.
func TestCommandHandWorked(t *testing.T) {
	doc, tables, err := validBlock(mooncakeFile(t, 1, 2, 3, 1)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := doc.(map[string]any)
	bounds, rows := d["bounds"].([]Bound), d["rows"].([]Row)
	b := bounds[0]
	if b.HindsightMissBlocks != 3 || b.LP == nil || b.LP.MissBlocks != 3 || b.IP == nil || b.IP.MissBlocks != 3 ||
		!b.OrderHolds || b.WidthBlocks == nil || *b.WidthBlocks != 0 {
		t.Errorf("bounds %+v", b)
	}
	if len(rows) != 2 || rows[1].Policy != "lru" || rows[1].MissBlocks != 4 || rows[1].GapBlocks != 1 {
		t.Errorf("rows %+v", rows)
	}
	if len(tables) != 2 || tables[0].Rows[0][5] != "3" || tables[1].Rows[1][2] != "4" {
		t.Fatalf("tables %+v", tables)
	}
	if got := tables[1].Rows[1][5] + " " + tables[1].Plain[1][5]; got != "33.3% 0.3333333333333333" {
		t.Errorf("lru relative gap and its CSV cell %q", got)
	}
}

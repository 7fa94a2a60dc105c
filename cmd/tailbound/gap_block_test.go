package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Worked by hand: single-block chains 1 2 3 1 at a capacity of 2 blocks
// (1,024 tokens). LRU evicts 1 for 3 and misses all four; the optimum
// evicts 2 (never used again) and hits 1 at the end: 3 misses.
func TestGapBlockHandWorked(t *testing.T) {
	var lines []string
	for i, h := range []int{1, 2, 3, 1} {
		lines = append(lines, `{"timestamp": `+itoa(i)+`, "input_length": 512, "output_length": 1, "hash_ids": [`+itoa(h)+`]}`)
	}
	tr := writeFile(t, "m.jsonl", strings.Join(lines, "\n")+"\n")
	code, out, errs := runCLI("gap", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacities", "1024",
		"--policies", "lru", "--lp-solver", "gonum", "--ip-solver", "gonum", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Bounds []struct {
			Hindsight int64    `json:"hindsight_miss_blocks"`
			Width     *float64 `json:"width_blocks"`
			Order     bool     `json:"order_holds"`
			LP        struct {
				Status string  `json:"status"`
				Miss   float64 `json:"miss_blocks"`
			} `json:"lp"`
			IP struct {
				Status string  `json:"status"`
				Miss   float64 `json:"miss_blocks"`
			} `json:"ip"`
		} `json:"bounds"`
		Rows []struct {
			Policy string `json:"policy"`
			Miss   int64  `json:"miss_blocks"`
			Gap    int64  `json:"gap_blocks"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	b := doc.Bounds[0]
	if b.Hindsight != 3 || b.LP.Miss != 3 || b.IP.Miss != 3 || b.LP.Status != "optimal" || b.IP.Status != "optimal" || !b.Order || b.Width == nil || *b.Width != 0 {
		t.Errorf("bounds %+v", b)
	}
	if len(doc.Rows) != 2 || doc.Rows[1].Policy != "lru" || doc.Rows[1].Miss != 4 || doc.Rows[1].Gap != 1 {
		t.Errorf("rows %+v", doc.Rows)
	}
}

func TestGapBlockFlags(t *testing.T) {
	tr := writeFile(t, "m.jsonl", `{"timestamp": 0, "input_length": 512, "output_length": 1, "hash_ids": [1]}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--forced"}, "turn level only"},
		{[]string{"--xis", "1,2"}, "one threshold"},
		{[]string{"--level", "cache"}, "want turn or block"},
	} {
		args := append([]string{"gap", "--level", "block", "--trace", tr, "--trace-format", "mooncake", "--capacities", "512"}, c.args...)
		code, _, errs := runCLI(args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want an error containing %q", c.args, code, errs, c.want)
		}
	}
	code, _, errs := runCLI("gap", "--trace", tr, "--capacities", "512", "--xis", "1", "--ip-solver", "cbc")
	if code == 0 || !strings.Contains(errs, "block level only") {
		t.Errorf("turn level with --ip-solver: exit %d, %q", code, errs)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// TestSimulateCapacitiesTurn: each point of simulate --capacities at turn
// level equals a separate simulate --capacity run, and --plot draws the
// four metric-versus-capacity figures.
func TestSimulateCapacitiesTurn(t *testing.T) {
	caps := []int64{32768, 98304, 196608}
	dir := t.TempDir()
	plot := filepath.Join(dir, "sweep.svg")
	code, out, errs := runCLI("simulate", "--capacities", "32768,98304,196608", "--policies", "lru,tlru,threshold-lru",
		"--format", "json", "--plot", plot)
	if code != 0 {
		t.Fatal(errs)
	}
	var sw struct {
		Sweep []struct {
			Capacity int64             `json:"capacity_tokens"`
			Policies []json.RawMessage `json:"policies"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil || len(sw.Sweep) != len(caps) {
		t.Fatalf("%v: %d points", err, len(sw.Sweep))
	}
	for i, c := range caps {
		code, out, errs := runCLI("simulate", "--capacity", strconv.FormatInt(c, 10), "--policies", "lru,tlru,threshold-lru", "--format", "json")
		if code != 0 {
			t.Fatal(errs)
		}
		var one struct {
			Policies []json.RawMessage `json:"policies"`
		}
		if err := json.Unmarshal([]byte(out), &one); err != nil {
			t.Fatal(err)
		}
		if sw.Sweep[i].Capacity != c {
			t.Errorf("point %d: capacity %d, want %d", i, sw.Sweep[i].Capacity, c)
		}
		for j := range one.Policies {
			var a, b any
			_ = json.Unmarshal(one.Policies[j], &a)
			_ = json.Unmarshal(sw.Sweep[i].Policies[j], &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("C=%d policy %d: sweep %s, single run %s", c, j, sw.Sweep[i].Policies[j], one.Policies[j])
			}
		}
	}
	for _, f := range []string{"sweep.svg", "sweep-tel.svg", "sweep-p90.svg", "sweep-p99.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
	if code, _, errs := runCLI("simulate", "--capacities", "32768,100", "--policies", "lru"); code == 0 || errs == "" {
		t.Error("a capacity off the block grid: want an error")
	}
	if code, _, _ := runCLI("simulate", "--capacities", "32768", "--capacity", "32768"); code == 0 {
		t.Error("--capacity with --capacities: want an error")
	}
}

// TestSimulateCapacitiesSeeds: a sweep over seeds prints intervals and
// --seeds 1 is the single-seed sweep.
func TestSimulateCapacitiesSeeds(t *testing.T) {
	_, a, _ := runCLI("simulate", "--capacities", "65536,131072", "--policies", "lru,tlru", "--seed", "3")
	_, b, errs := runCLI("simulate", "--capacities", "65536,131072", "--policies", "lru,tlru", "--seed", "3", "--seeds", "1")
	if a != b || a == "" {
		t.Errorf("--seeds 1 differs from the single sweep (%s)", errs)
	}
	code, c, errs := runCLI("simulate", "--capacities", "65536,131072", "--policies", "lru,tlru", "--seeds", "3", "--format", "csv")
	if code != 0 || !reflect.DeepEqual(c != "", true) {
		t.Fatal(errs)
	}
}

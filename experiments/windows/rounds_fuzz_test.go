package windows_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRoundState: whatever the state file of --round-dir holds as its
// search (the settings kept valid, so that the search itself is read),
// or whatever bytes replace the whole file, a step that advances the
// search returns a result or an error, never a panic.
func FuzzRoundState(f *testing.F) {
	f.Add([]byte(`{"percentile":99,"rank":2,"max_exceeding":0,"lower_bound":2,"upper_bound":5,"windows":1,"window_turns":2,"turns":2,"objective":"p99","start_lower_bound":2,"start_upper_bound":5,"thresholds_per_round":2,"max_probes":0,"rounds":[],"next_taus_tokens":[3,4]}`), false)
	f.Add([]byte(`{"lower_bound":3,"upper_bound":2,"objective":"p99","turns":2,"thresholds_per_round":2,"rounds":[[{"tau_tokens":1,"decided":"undecided"}]],"next_taus_tokens":[]}`), false)
	f.Add([]byte(`not json`), true)
	f.Fuzz(func(t *testing.T, data []byte, whole bool) {
		trPath := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(trPath, []byte("{\"t\":0,\"conv\":\"a\",\"prompt\":3,\"response\":0}\n{\"t\":1,\"conv\":\"a\",\"prompt\":2,\"response\":0}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		c := base(trPath)
		c.Percentile, c.LowerOverlap, c.Rounds, c.RoundDir, c.Format, c.Windows = p99(), 0, 2, dir, "csv", 1
		var out bytes.Buffer
		if _, _, err := c.Run(context.Background(), &out); err != nil { // a valid state, for its settings
			t.Fatal(err)
		}
		state := data
		if !whole {
			var st map[string]json.RawMessage
			b, err := os.ReadFile(filepath.Join(dir, "state.json"))
			if err != nil || json.Unmarshal(b, &st) != nil || !json.Valid(data) {
				return
			}
			st["search"] = data
			if state, err = json.Marshal(st); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "state.json"), state, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _ = c.Run(context.Background(), &out)
	})
}

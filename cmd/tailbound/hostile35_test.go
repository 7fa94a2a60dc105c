package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTimeLimitRange: --time-limit outside [1 ms, 10^6 s] (0 aside, no
// limit) is refused in one line naming the range, in solve, gap and both
// block-level commands; 1e-10 s rounded to a zero duration (no limit) and
// 9.3·10^9 s overflowed a duration (issue 35 item 5). NaN and infinities
// are refused before, by every float flag.
func TestTimeLimitRange(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	os.WriteFile(tr, []byte(edgeTrace), 0o644)
	cmds := map[string][]string{
		"solve":       {"solve", "--trace", tr, "--capacity", "32", "--block-size", "16", "--xi-tokens", "0"},
		"gap":         {"gap", "--trace", tr, "--capacities", "32", "--block-size", "16", "--xis", "0", "--policies", "lru"},
		"solve block": {"solve", "--level", "block", "--trace", tr, "--capacity", "64", "--block-size", "16", "--xi-tokens", "0"},
		"gap block":   {"gap", "--level", "block", "--trace", tr, "--capacities", "64", "--block-size", "16", "--xis", "0", "--policies", "lru"},
	}
	for name, args := range cmds {
		for _, bad := range []string{"1e-10", "0.0009", "9.3e9", "1000001", "-1"} {
			t.Run(name+" "+bad, func(t *testing.T) {
				code, out, errs := runCLI(append(args, "--time-limit", bad)...)
				oneLine(t, code, out, errs, "flag --time-limit: must be 0 (no limit) or between 0.001 and 1e+06 seconds")
			})
		}
		for _, good := range []string{"0", "0.001", "60"} {
			if code, _, errs := runCLI(append(args, "--time-limit", good)...); code != 0 {
				t.Errorf("%s --time-limit %s: exit %d: %s", name, good, code, errs)
			}
		}
	}
}

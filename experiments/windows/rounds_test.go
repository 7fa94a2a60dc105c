package windows_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/experiments/windows"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/slo"
	"github.com/tailbound/tailbound/lp/window"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/objective"
)

// TestRoundsStepsToOneProcess runs the search in rounds as the Slurm chain
// does, without Slurm: each step of the chain in turn in this process
// (advance, then 3 shards writing their files into the round's folder,
// then advance again, …), and compares the result byte for byte with the
// one-process run of solve --rounds. Its interval meets lp/slo's whole
// interval and the one-process search's (window.RunPercentile: other
// thresholds, also certified). Then the refusals: a step with other
// settings names the one that differs; a round with a shard missing names
// the windows no file holds; a shard file of another round is refused by its round.
func TestRoundsStepsToOneProcess(t *testing.T) {
	ctx := context.Background()
	c, r, want := roundsOneProcess(t, 0)
	s, _, err := func() (any, []report.Table, error) { c := c; c.Rounds = 0; return c.Run(ctx, nil) }()
	if err != nil {
		t.Fatal(err)
	}
	if sb := s.(*windows.PercentileReport).PercentileBounds; max(sb.Lower, r.Lower) > min(sb.Upper, r.Upper) {
		t.Fatalf("searched [%d, %d], rounds [%d, %d]: disjoint", sb.Lower, sb.Upper, r.Lower, r.Upper)
	}

	dir := filepath.Join(t.TempDir(), "run")
	step := c
	step.RoundDir, step.Out = dir, filepath.Join(t.TempDir(), "result.csv")
	for round := 1; ; round++ {
		var out bytes.Buffer
		if _, _, err := step.Run(ctx, &out); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(step.Out); err == nil {
			if out.Len() != 0 || round != len(r.Done)+1 {
				t.Fatalf("result after %d advances (want %d), stdout %q", round, len(r.Done)+1, out.String())
			}
			break
		}
		if !strings.HasPrefix(out.String(), fmt.Sprintf("round %d: thresholds ", round)) || round > len(r.Done) {
			t.Fatalf("advance %d printed %q; the one process ran %d rounds", round, out.String(), len(r.Done))
		}
		for i := 1; i <= 3; i++ {
			sh := step
			sh.Shard, sh.Out = fmt.Sprintf("%d/3", i), ""
			if _, _, err := sh.Run(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}
		if round == 1 {
			// Refusals, then the round as it was.
			other := step
			other.SeamTurns = 41
			if _, _, err := other.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), `seam_turns is "40" there, "41" here`) {
				t.Fatalf("other settings: %v", err)
			}
			f2 := filepath.Join(dir, "round-1", "shard-2.json")
			data, err := os.ReadFile(f2)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(f2)
			if _, _, err := step.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), "a shard is missing") {
				t.Fatalf("a shard missing: %v", err)
			}
			stale := strings.Replace(string(data), `"round": "1"`, `"round": "7"`, 1)
			if stale == string(data) {
				t.Fatal("no round setting in the shard file")
			}
			if err := os.WriteFile(f2, []byte(stale), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := step.Run(ctx, nil); err == nil {
				t.Fatal("a shard file of round 7 was merged into round 1")
			}
			if err := os.WriteFile(f2, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := os.ReadFile(step.Out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("steps:\n%s\none process:\n%s", got, want)
	}
	// The search over, a shard is refused and advancing again gives the
	// result again.
	sh := step
	sh.Shard, sh.Out = "1/3", ""
	if _, _, err := sh.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), "is over") {
		t.Fatalf("a shard after the end: %v", err)
	}
	var again bytes.Buffer
	step.Out = ""
	d2, t2, err := step.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Emit(&again, "csv", d2, t2...); err != nil || again.String() != want {
		t.Fatalf("advanced again: %v\n%s", err, again.String())
	}
}

// TestRoundsOverlapStepsToOneProcess: with a lower overlap the search in
// rounds, run as steps (advance, three shards writing each window's
// weighted bounds, advance again, …), prints the one-process run's CSV
// byte for byte; its interval says the overlap and meets lp/slo's on the
// whole trace; a step of another overlap is refused, naming it.
func TestRoundsOverlapStepsToOneProcess(t *testing.T) {
	ctx := context.Background()
	c, r, want := roundsOneProcess(t, 25)
	step := c
	step.RoundDir, step.Out = filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "result.csv")
	for round := 1; round <= len(r.Done)+1; round++ {
		if _, _, err := step.Run(ctx, io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(step.Out); err == nil {
			break
		}
		if round == 1 {
			other := step
			other.LowerOverlap = 30
			if _, _, err := other.Run(ctx, io.Discard); err == nil || !strings.Contains(err.Error(), "lower_overlap_turns") {
				t.Fatalf("another overlap: %v", err)
			}
		}
		for i := 1; i <= 3; i++ {
			sh := step
			sh.Shard, sh.Out = fmt.Sprintf("%d/3", i), ""
			if _, _, err := sh.Run(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := os.ReadFile(step.Out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("steps:\n%s\none process:\n%s", got, want)
	}
}

// roundsOneProcess runs solve --objective p90 --rounds 3 --max-probes 7
// on a random trace of 200 turns with a lower overlap of back steps in one
// process, checks that its interval meets lp/slo's on the whole trace
// after two rounds or more and records the overlap, and returns the
// command, the search and its CSV.
func roundsOneProcess(t *testing.T, back int) (windows.Command, *window.Rounds, string) {
	t.Helper()
	ctx := context.Background()
	path, tr := writeTrace(t, 200, 6)
	o, _ := objective.Parse("p90")
	c := base(path)
	c.Percentile, c.LowerOverlap, c.Rounds, c.MaxProbes, c.Format = &o, back, 3, 7, "csv"
	doc, tables, err := c.Run(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := report.Emit(&want, "csv", doc, tables...); err != nil {
		t.Fatal(err)
	}
	r := doc.(*window.Rounds)
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 2048, BlockSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := slo.PercentileOf(ctx, in, o, slo.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.LowerOverlap != back || r.Lower > whole.Upper || r.Upper < whole.Lower || len(r.Done) < 2 {
		t.Fatalf("overlap %d: rounds [%d, %d] after %d rounds, overlap %d; lp/slo whole [%d, %d]", back, r.Lower, r.Upper, len(r.Done), r.LowerOverlap, whole.Lower, whole.Upper)
	}
	return c, r, want.String()
}

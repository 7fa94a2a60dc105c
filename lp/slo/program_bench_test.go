package slo

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// programFile is the JSON form of a component's 0/1 program written by
// BenchmarkWriteProgram, read by scripts/highs-reference and by
// TestWideWindowReference: members serve when chosen, member i holds d[i]
// blocks over the segments lo[i] .. hi[i]−1, segment j (steps ends[j] ..
// ends[j+1]−1) has capacity segCap[j] blocks, and rowSeg lists the
// segments whose members can exceed it (the others never bind). x marks
// the members the search's schedule serves; lower and upper are that
// solve's interval on violations.
type programFile struct {
	D      []int64 `json:"d"`
	Lo     []int64 `json:"lo"`
	Hi     []int64 `json:"hi"`
	SegCap []int64 `json:"segCap"`
	RowSeg []int32 `json:"rowSeg"`
	Ends   []int   `json:"ends"`
	X      []int   `json:"x"`
	Lower  int     `json:"lower"`
	Upper  int     `json:"upper"`
}

// largestProgram is the largest component of paperInstance(turns, seed)
// at SLO 1,900 tokens as a programFile, with the served set of Violations
// under opt (deterministic without a time limit).
func largestProgram(t testing.TB, turns int, seed uint64, opt Options) programFile {
	t.Helper()
	in := paperInstance(t, turns, seed)
	r, err := Violations(context.Background(), in, 1900, opt)
	if err != nil {
		t.Fatal(err)
	}
	pr := reduce(in, 1900)
	served := pr.fromSchedule(r.Schedule)
	m := pr.newComponent(pr.largestMembers())
	f := programFile{D: m.d, SegCap: m.segCap, RowSeg: m.rowSeg, Ends: m.ends, Lower: r.Lower, Upper: r.Upper}
	for k, i := range m.members {
		f.Lo = append(f.Lo, int64(m.lo[k]))
		f.Hi = append(f.Hi, int64(m.hi[k]))
		x := 0
		if served[i] {
			x = 1
		}
		f.X = append(f.X, x)
	}
	return f
}

// BenchmarkWriteProgram writes the largest component of `gen birth-death
// --turns N --seed S` (C = 131,072 tokens, B = 16, SLO 1,900 tokens), for
// N in {4,000, 10,000} and S in 1..5, to $TAILBOUND_PROGRAMS (default
// os.TempDir()/tailbound-programs) as c<N>-<S>.json (programFile), with
// the search's served set: the programs scripts/highs-reference hands an
// outside MIP solver (docs/tail-bounds.md). A tool, not a measurement:
//
//	go test ./lp/slo -run '^$' -bench WriteProgram -benchtime 1x
func BenchmarkWriteProgram(b *testing.B) {
	dir := os.Getenv("TAILBOUND_PROGRAMS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "tailbound-programs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, turns := range []int{4000, 10_000} {
			for seed := uint64(1); seed <= 5; seed++ {
				f := largestProgram(b, turns, seed, Options{})
				out, err := json.Marshal(f)
				if err != nil {
					b.Fatal(err)
				}
				path := filepath.Join(dir, fmt.Sprintf("c%d-%d.json", turns, seed))
				if err := os.WriteFile(path, out, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}

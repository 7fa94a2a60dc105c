package slo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// programFile is the JSON form of a component's 0/1 program written by
// BenchmarkWriteProgram, read by scripts/highs-reference: members serve
// when chosen, member i holds d[i] blocks over the segments lo[i] ..
// hi[i]−1, segment j has capacity segCap[j] blocks, and rowSeg lists the
// segments whose members can exceed it (the others never bind). x marks
// the members the search's schedule serves (Violations, default options:
// deterministic).
type programFile struct {
	D      []int64 `json:"d"`
	Lo     []int32 `json:"lo"`
	Hi     []int32 `json:"hi"`
	SegCap []int64 `json:"segCap"`
	RowSeg []int32 `json:"rowSeg"`
	X      []int   `json:"x"`
	Lower  int     `json:"lower"`
	Upper  int     `json:"upper"`
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
				in := paperInstance(b, turns, seed)
				r, err := Violations(b.Context(), in, 1900, Options{})
				if err != nil {
					b.Fatal(err)
				}
				pr := reduce(in, 1900)
				m := pr.newComponent(pr.largestMembers())
				f := programFile{D: m.d, Lo: m.lo, Hi: m.hi, SegCap: m.segCap, RowSeg: m.rowSeg,
					X: make([]int, len(m.members)), Lower: r.Lower, Upper: r.Upper}
				for i, c := range m.members {
					if p := pr.cands[c]; r.Schedule[p.n] >= p.d*in.BlockSize {
						f.X[i] = 1
					}
				}
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

package prefixgen

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// genModel draws a small valid model: 1–3 categories, a tree of 0–2
// levels, log-normal lengths, next-turn probabilities and a diurnal swing.
func genModel(t *rapid.T) Model {
	law := func(name string, lo int64) LogNormal {
		return LogNormal{Mu: rapid.Float64Range(0, 9).Draw(t, name+"mu"), Sigma: rapid.Float64Range(0, 2).Draw(t, name+"sigma"),
			Min: lo, Max: rapid.Int64Range(lo, 200000).Draw(t, name+"max")}
	}
	m := Model{SessionsPerS: rapid.Float64Range(0.01, 10).Draw(t, "rate"),
		Diurnal: Diurnal{Amplitude: rapid.Float64Range(0, 0.9).Draw(t, "amp"), PeakHour: rapid.Float64Range(0, 24).Draw(t, "peak")}}
	for i, n := 0, rapid.IntRange(0, 2).Draw(t, "levels"); i < n; i++ {
		m.Tree.Levels = append(m.Tree.Levels, Level{Fanout: rapid.IntRange(1, 5).Draw(t, "fanout"), Blocks: rapid.IntRange(1, 4).Draw(t, "blocks"),
			Zipf: rapid.Float64Range(0, 2).Draw(t, "zipf"), Prob: rapid.Float64Range(0, 1).Draw(t, "prob")})
	}
	for i, n := 0, rapid.IntRange(1, 3).Draw(t, "cats"); i < n; i++ {
		c := Category{Name: "c", Weight: rapid.Float64Range(0.1, 1).Draw(t, "w"),
			First: law("first", 1), Increment: law("inc", 1), Output: law("out", 0),
			NextTurn:         []float64{rapid.Float64Range(0, 1).Draw(t, "p1"), rapid.Float64Range(0, 0.95).Draw(t, "p2")},
			Gap:              Gap{OffsetS: rapid.Float64Range(0, 5).Draw(t, "off"), MeanS: rapid.Float64Range(0, 50).Draw(t, "mean"), GapShift: rapid.Float64Range(-0.9, 0.9).Draw(t, "shift")},
			MaxContextTokens: rapid.Int64Range(0, 300000).Draw(t, "maxctx")}
		if len(m.Tree.Levels) > 0 {
			c.PrefixProb = rapid.Float64Range(0, 1).Draw(t, "pp")
		}
		m.Categories = append(m.Categories, c)
	}
	return m
}

// TestGeneratedTraceInvariants: on any model, requests come in time
// order; a chain has ⌈input/512⌉ blocks; a session's turns are numbered
// 1, 2, … and each re-sends its predecessor's input and output plus ≥ 1
// token, keeping exactly the predecessor's full blocks as its prefix;
// every other block of a chain (past the shared prefix) has never been
// seen before; prefix blocks lie in the tree's reserved range and are
// never used outside a chain's first blocks; inputs respect the context
// limit.
func TestGeneratedTraceInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genModel(t)
		g, err := NewGenerator(m, rapid.Uint64().Draw(t, "seed"))
		if err != nil {
			t.Fatalf("valid model refused: %v", err)
		}
		treeBlocks := int64(0)
		nodes := int64(1)
		for _, l := range m.Tree.Levels {
			nodes *= int64(l.Fanout)
			treeBlocks += nodes * int64(l.Blocks)
		}
		type prev struct {
			turn          int
			input, output int64
			full          []int64
		}
		sessions := map[int64]prev{}
		seen := map[int64]bool{}
		last := math.Inf(-1)
		for i := 0; i < 300; i++ {
			r := g.Next()
			if r.TimeS < last {
				t.Fatalf("request %d at %v s before %v s", i, r.TimeS, last)
			}
			last = r.TimeS
			if want := (r.Input + BlockTokens - 1) / BlockTokens; int64(len(r.Hashes)) != want {
				t.Fatalf("request %d: %d blocks for %d tokens", i, len(r.Hashes), r.Input)
			}
			c := m.Categories[r.Category]
			kept := 0
			if p, ok := sessions[r.Session]; ok {
				if r.Turn != p.turn+1 || r.Input < p.input+p.output+1 {
					t.Fatalf("request %d: turn %d, input %d after turn %d of %d+%d tokens", i, r.Turn, r.Input, p.turn, p.input, p.output)
				}
				if c.MaxContextTokens > 0 && r.Input > c.MaxContextTokens {
					t.Fatalf("request %d: input %d past the context limit %d", i, r.Input, c.MaxContextTokens)
				}
				for k, h := range p.full {
					if r.Hashes[k] != h {
						t.Fatalf("request %d: block %d is %d, its predecessor's full block was %d", i, k, r.Hashes[k], h)
					}
				}
				kept = len(p.full)
			} else {
				if r.Turn != 1 {
					t.Fatalf("request %d: a new session's turn %d", i, r.Turn)
				}
				for kept < len(r.Hashes) && r.Hashes[kept] < treeBlocks {
					kept++
				}
			}
			for k := kept; k < len(r.Hashes); k++ {
				h := r.Hashes[k]
				if h < treeBlocks || seen[h] {
					t.Fatalf("request %d: block %d (id %d) is not fresh", i, k, h)
				}
				seen[h] = true
			}
			sessions[r.Session] = prev{r.Turn, r.Input, r.Output, append([]int64(nil), r.Hashes[:r.Input/BlockTokens]...)}
		}
	})
}

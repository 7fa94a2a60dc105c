package slo

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// paperInstance is the default birth–death workload of seed seed cut at
// turns turns, at the settings of docs/tail-bounds.md (C = 131,072
// tokens, B = 16, ξ = 1,900 tokens).
func paperInstance(b testing.TB, turns int, seed uint64) *lp.Instance {
	b.Helper()
	p := birthdeath.Default()
	p.Duration = 0
	p.MaxTurns = turns
	return paperInstanceOf(b, p, seed)
}

// paperInstanceOf is the birth–death workload of parameters p and seed
// seed at the settings of docs/tail-bounds.md (C = 131,072 tokens, B =
// 16, ξ = 1,900 tokens); birthdeath.Default() is the embedded workload.
func paperInstanceOf(b testing.TB, p birthdeath.Params, seed uint64) *lp.Instance {
	b.Helper()
	tr, err := birthdeath.Trace(p, seed)
	if err != nil {
		b.Fatal(err)
	}
	in, err := lp.NewInstance(tr, instance.Params{Capacity: 131072, BlockSize: 16, Xi: 1900})
	if err != nil {
		b.Fatal(err)
	}
	return in
}

// stretchBenchComponent is the largest component of the 10^4-turn
// instance of docs/tail-bounds.md with the given seed (C = 131,072
// tokens, B = 16, SLO 1,900 tokens), with unit profits.
func stretchBenchComponent(b testing.TB, seed uint64) (*component, []int64) {
	pr := reduce(paperInstance(b, 10_000, seed), 1900)
	m := pr.newComponent(pr.largestMembers())
	P := wholeShares(len(m.members))
	return m, P
}

// largestMembers is the members of pr's component with the most.
func (pr *problem) largestMembers() []int {
	members := pr.members()
	big0 := 0
	for c := range members {
		if len(members[c]) > len(members[big0]) {
			big0 = c
		}
	}
	return members[big0]
}

// BenchmarkStretchBound runs the stretches' bound (span 25, and 40 with
// the shipped rule and search; 60 steps from
// the LP's split, no time limit) on the largest component of the
// 10^4-turn instances of docs/tail-bounds.md (seeds 1–3), by each rule
// for the shares (the shipped bundle method handing over to the
// subgradient, and the deflected subgradient alone) and each search of a
// stretch (best-first, shipped; depth-first, before), reporting the LP's
// bound (pairs served), what the stretches take off it and their bound's
// floor beside the time (the bound is deterministic: no time limit).
func BenchmarkStretchBound(b *testing.B) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, run := range []struct {
			span   int
			rule   StretchRule
			search string
		}{{stretchSpan, StretchBundle, "best"}, {stretchSpan, StretchSubgradient, "best"}, {stretchSpan, StretchBundle, "depth"}, {40, StretchBundle, "best"}} {
			b.Run(fmt.Sprintf("seed=%d/span=%d/rule=%s/search=%s", seed, run.span, run.rule, run.search), func(b *testing.B) {
				m, P := stretchBenchComponent(b, seed)
				for b.Loop() {
					lpb, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
					if err != nil {
						b.Fatal(err)
					}
					cfg := StretchOptions{Span: run.span, Layers: stretchLayers, Rule: run.rule}.config()
					cfg.depthFirst = run.search == "depth"
					sb, st := m.stretchRun(context.Background(), P, y, cfg, 0, 60)
					b.ReportMetric(lpb.value(), "lp-pairs")
					b.ReportMetric(lpb.value()-sb.value(), "gain-pairs")
					b.ReportMetric(float64(sb.floor(len(m.members))), "stretch-floor")
					b.ReportMetric(float64(st.Iterations), "steps")
					b.ReportMetric(float64(st.Handoff), "handoff-step")
				}
			})
		}
	}
}

// BenchmarkStretchSpan: the stretches' bound at the LP's split (no step,
// no halving) on the same components, for spans of 25, 40 and 80 rows
// and each search at 50,000 nodes per stretch (and best-first at
// 400,000), with the stretches the node budget left open: whether long
// stretches close, and whether more nodes lower the open ones.
func BenchmarkStretchSpan(b *testing.B) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, span := range []int{25, 40, 80} {
			for _, run := range []struct {
				search string
				nodes  int
			}{{"best", defaultStretchNodes}, {"depth", defaultStretchNodes}, {"best", 8 * defaultStretchNodes}} {
				b.Run(fmt.Sprintf("seed=%d/span=%d/search=%s/nodes=%d", seed, span, run.search, run.nodes), func(b *testing.B) {
					m, P := stretchBenchComponent(b, seed)
					for b.Loop() {
						lpb, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
						if err != nil {
							b.Fatal(err)
						}
						cfg := StretchOptions{Span: span, MinSpan: -1, Nodes: run.nodes}.config()
						cfg.depthFirst = run.search == "depth"
						sb, st := m.stretchRun(context.Background(), P, y, cfg, 0, 0)
						b.ReportMetric(lpb.value()-sb.value(), "gain-pairs")
						b.ReportMetric(float64(st.Stretches), "stretches")
						b.ReportMetric(float64(st.Inexact), "open-stretches")
					}
				})
			}
		}
	}
}

// BenchmarkStretchSteps times the stretches' bound at the LP's split and
// 5 steps of the shipped rule (no halving) on the largest component of
// the 10^4-turn instance, seed 1, spans 25 and 40: the cost of a step,
// whose solves are most of a 60 s solve's stretch stage.
func BenchmarkStretchSteps(b *testing.B) {
	for _, span := range []int{25, 40} {
		b.Run(fmt.Sprintf("span=%d", span), func(b *testing.B) {
			m, P := stretchBenchComponent(b, 1)
			_, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
			if err != nil {
				b.Fatal(err)
			}
			cfg := StretchOptions{Span: span, MinSpan: -1}.config()
			for b.Loop() {
				sb, _ := m.stretchRun(context.Background(), P, y, cfg, 0, 5)
				b.ReportMetric(sb.value(), "bound-pairs")
			}
		})
	}
}

// BenchmarkStretchReshape runs the stretches' bound for a fixed number
// of steps (deterministic: no time limit) on the largest component of the
// 10^4-turn instances (seeds 1–3), span 25 with halving, by how the
// stretches change when the shares stall (layer.go): never (one layer),
// two layers from the start, the second layer added at the first stall
// (the root's default), and neighbours merged up to 100 rows at each
// stall; it reports the LP's bound, what the stretches take off it, their
// bound's floor and the step at which the second layer joined.
func BenchmarkStretchReshape(b *testing.B) {
	for seed := uint64(1); seed <= 3; seed++ {
		for _, run := range []struct {
			name string
			o    StretchOptions
		}{
			{"one-layer", StretchOptions{Span: stretchSpan}},
			{"two-layers", StretchOptions{Span: stretchSpan, Layers: 2}},
			{"add-layer", StretchOptions{Span: stretchSpan, AddLayer: true}},
			{"coarsen", StretchOptions{Span: stretchSpan, Coarsen: 100}},
		} {
			for _, steps := range []int{60, 150} {
				b.Run(fmt.Sprintf("seed=%d/%s/steps=%d", seed, run.name, steps), func(b *testing.B) {
					m, P := stretchBenchComponent(b, seed)
					for b.Loop() {
						lpb, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
						if err != nil {
							b.Fatal(err)
						}
						sb, st := m.stretchRun(context.Background(), P, y, run.o.config(), 0, steps)
						b.ReportMetric(lpb.value(), "lp-pairs")
						b.ReportMetric(lpb.value()-sb.value(), "gain-pairs")
						b.ReportMetric(float64(sb.floor(len(m.members))), "stretch-floor")
						b.ReportMetric(float64(st.Layered), "layered-step")
					}
				})
			}
		}
	}
}

// BenchmarkStretchBindingRows: a relaxation that drops every capacity row
// of the largest component of the 10^4-turn instance (seed 1) but the
// steps the LP fills to within one block, and the stretches' bound on
// what is left (span 2 and 3 of its rows, the LP's split and 30 steps,
// 200,000 nodes a stretch). Dropping rows can only raise the optimum, so
// the bound stays valid; the question is whether stretches that couple
// binding steps far apart (the kept rows are about 50 steps apart) beat
// stretches of consecutive rows. Reported: the steps and rows kept, the
// LP's bound (pairs served), what the stretches take off it and their
// bound's floor, and the stretches left open.
func BenchmarkStretchBindingRows(b *testing.B) {
	for _, span := range []int{2, 3} {
		b.Run(fmt.Sprintf("span=%d", span), func(b *testing.B) {
			for b.Loop() {
				m, kept := bindingRowsComponent(b, 1)
				P := wholeShares(len(m.members))
				lpb, y, err := m.flowBound(context.Background(), P, new(big.Int), nil)
				if err != nil {
					b.Fatal(err)
				}
				cfg := StretchOptions{Span: span, Layers: 1, Nodes: 200_000}.config()
				sb, st := m.stretchRun(context.Background(), P, y, cfg, 0, 30)
				b.ReportMetric(float64(kept), "tight-steps")
				b.ReportMetric(float64(len(m.rowSeg)), "rows")
				b.ReportMetric(lpb.value(), "lp-pairs")
				b.ReportMetric(lpb.value()-sb.value(), "gain-pairs")
				b.ReportMetric(float64(sb.floor(len(m.members))), "stretch-floor")
				b.ReportMetric(float64(st.Inexact), "open-stretches")
			}
		})
	}
}

// bindingRowsComponent is the largest component of stretchBenchComponent's
// instance with the capacity of every step that the LP relaxation leaves
// more than one block short of full raised above the sum of all demands,
// so that only the LP's tight steps can form rows; kept counts them.
func bindingRowsComponent(b testing.TB, seed uint64) (m *component, kept int) {
	in := paperInstance(b, 10_000, seed)
	pr := reduce(in, 1900)
	if _, _, _, _, err := pr.lpBound(context.Background()); err != nil {
		b.Fatal(err)
	}
	use := make([]float64, in.K())
	var sum int64
	for i, c := range pr.cands {
		sum += c.d
		for t := c.a; t < c.n; t++ {
			use[t] += float64(c.d) * pr.lpY[i]
		}
	}
	for t := range pr.cap {
		if use[t] > float64(pr.cap[t])-1 {
			kept++
		} else {
			pr.cap[t] = sum + 1
		}
	}
	pr.capTree = nil
	members := pr.members()
	big0 := 0
	for c := range members {
		if len(members[c]) > len(members[big0]) {
			big0 = c
		}
	}
	return pr.newComponent(members[big0]), kept
}

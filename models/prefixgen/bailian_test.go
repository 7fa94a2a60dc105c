package prefixgen

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/importer"
)

// TestFitBailianCategories writes a two-category model's requests as a
// Bailian trace (chat ids, parent ids and types from the generator's
// sessions; the importer's chain-length check off, the chains being of
// 512-token blocks) and checks that the fit recovers each category's
// share and next-turn probabilities within 4 binomial standard
// deviations, and tells the categories' reuse times apart.
func TestFitBailianCategories(t *testing.T) {
	fixed := func(n float64) LogNormal { return LogNormal{Mu: math.Log(n), Sigma: 0.3, Min: 1} }
	m := Model{SessionsPerS: 2, Categories: []Category{
		{Name: "text", Weight: 3, First: fixed(800), Increment: fixed(50), Output: fixed(200),
			NextTurn: []float64{0.5, 0.8}, Gap: Gap{Law: "exponential", OffsetS: 2, MeanS: 30}},
		{Name: "search", Weight: 1, First: fixed(3000), Increment: fixed(50), Output: fixed(400),
			NextTurn: []float64{0.2}, Gap: Gap{Law: "exponential", OffsetS: 5, MeanS: 120}},
	}}
	g, err := NewGenerator(m, 11)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	latest := map[int64]int64{} // session → its latest chat id
	for i := int64(0); i < 100_000; i++ {
		r := g.Next()
		parent, ok := latest[r.Session]
		if !ok {
			parent = -1
		}
		latest[r.Session] = i
		if err := enc.Encode(map[string]any{"chat_id": i, "parent_chat_id": parent, "timestamp": r.TimeS,
			"input_length": r.Input, "output_length": r.Output, "type": m.Categories[r.Category].Name,
			"turn": r.Turn, "hash_ids": r.Hashes}); err != nil {
			t.Fatal(err)
		}
	}
	opt := importer.DefaultOptions()
	opt.Chain = importer.ChainAny
	f, err := Fit(importer.NewBailian(&b, "bailian", opt), FitOptions{NextTurns: 2, GapLaw: "exponential"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, c := range f.Model.Categories {
		byName[c.Name] = i
	}
	n := float64(f.Sessions)
	for _, k := range m.Categories {
		i, ok := byName[k.Name]
		if !ok {
			t.Fatalf("category %s not fitted", k.Name)
		}
		c := f.Model.Categories[i]
		share := k.Weight / 4
		if sd := math.Sqrt(share * (1 - share) / n); math.Abs(c.Weight-share) > 4*sd {
			t.Errorf("%s: share %.4f, want %.4f ± %.4f", k.Name, c.Weight, share, 4*sd)
		}
		ns := float64(f.CategorySessions[i])
		p1 := k.NextTurn[0]
		if sd := math.Sqrt(p1 * (1 - p1) / ns); math.Abs(c.NextTurn[0]-p1) > 4*sd+0.002 {
			t.Errorf("%s: next-turn after turn 1 %.4f, want %.4f ± %.4f", k.Name, c.NextTurn[0], p1, 4*sd)
		}
		// The exponential's mean from nf gaps has sd mean/√nf.
		nf := float64(f.CategoryFollowUps[i])
		if sd := k.Gap.MeanS / math.Sqrt(nf); math.Abs(c.Gap.MeanS-k.Gap.MeanS) > 4*sd+0.01 {
			t.Errorf("%s: reuse-time mean %.3f s, want %.3f ± %.3f", k.Name, c.Gap.MeanS, k.Gap.MeanS, 4*sd)
		}
		// The least of nf gaps exceeds the offset by Exp(mean/nf): past
		// 10·mean/nf with probability e^−10.
		if d := c.Gap.OffsetS - k.Gap.OffsetS; d < -1e-9 || d > 10*k.Gap.MeanS/nf {
			t.Errorf("%s: reuse-time offset %.4f s, want %.4f + [0, %.4f] (the least of %d gaps)", k.Name, c.Gap.OffsetS, k.Gap.OffsetS, 10*k.Gap.MeanS/nf, int(nf))
		}
	}
}

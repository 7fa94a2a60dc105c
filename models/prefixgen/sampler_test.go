package prefixgen

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// tiny is a hand-worked model: one session category of exactly three turns
// (next-turn probabilities 1, 1, 0), fixed lengths (σ = 0), a one-block
// system prompt every session uses, reuse times of exactly 10 s, and
// sessions so rare (one per 10^6 s) that the first three requests are the
// first session's.
func tiny() Model {
	fixed := func(n float64) LogNormal { return LogNormal{Mu: math.Log(n), Min: 1} }
	return Model{
		SessionsPerS: 1e-6,
		Tree:         Tree{Levels: []Level{{Fanout: 1, Blocks: 1}}},
		Categories: []Category{{Name: "text", Weight: 1, PrefixProb: 1,
			First: fixed(700), Increment: fixed(400), Output: fixed(100),
			NextTurn: []float64{1, 1, 0}, Gap: Gap{OffsetS: 10}}},
	}
}

// TestTinyModelByHand checks the three requests of tiny against the hand
// computation:
//
//	turn 1: input 512 (prompt) + 700 = 1212 tokens → ⌈1212/512⌉ = 3 blocks:
//	        0 (the prompt), 1, 2 (fresh; 2 is partial); keeps [0 1].
//	turn 2: 1212 + 100 + 400 = 1712 tokens → 4 blocks: 0 1, then 3 4
//	        fresh (the partial 2 is not reused); keeps [0 1 3].
//	turn 3: 1712 + 100 + 400 = 2212 tokens → 5 blocks: 0 1 3, then 5 6.
//
// The first arrival is the PCG stream's first draw, Exp(1)/rate; the turns
// follow 10 s and 20 s later.
func TestTinyModelByHand(t *testing.T) {
	var b bytes.Buffer
	if _, err := Write(context.Background(), GenOptions{Model: tiny(), Seed: 7, Requests: 3}, &b); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 0x70726566697867))
	t0 := r.ExpFloat64() / 1e-6
	ms := func(s float64) string { return strconv.FormatInt(int64(math.Floor(s*1000)), 10) }
	want := `{"timestamp": ` + ms(t0) + `, "input_length": 1212, "output_length": 100, "hash_ids": [0, 1, 2]}
{"timestamp": ` + ms(t0+10) + `, "input_length": 1712, "output_length": 100, "hash_ids": [0, 1, 3, 4]}
{"timestamp": ` + ms(t0+20) + `, "input_length": 2212, "output_length": 100, "hash_ids": [0, 1, 3, 5, 6]}
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestDeterministic: a fixed seed gives byte-identical output, another
// seed another trace.
func TestDeterministic(t *testing.T) {
	gen := func(m Model, seed uint64) []byte {
		var b bytes.Buffer
		if _, err := Write(context.Background(), GenOptions{Model: m, Seed: seed, Requests: 20000}, &b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, name := range Presets() {
		m, _ := Preset(name)
		a, b, c := gen(m, 1), gen(m, 1), gen(m, 2)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: seed 1 twice gives different traces", name)
		}
		if bytes.Equal(a, c) {
			t.Errorf("%s: seeds 1 and 2 give the same trace", name)
		}
	}
}

// TestZipfCum: ranks 1..3 with s = 1 have weights 1, 1/2, 1/3 of H = 11/6.
func TestZipfCum(t *testing.T) {
	got := zipfCum(3, 1)
	want := []float64{6.0 / 11, 9.0 / 11, 1}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("zipfCum(3,1)[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.5, 0}, {6.0 / 11, 1}, {0.8, 1}, {9.0 / 11, 2}, {0.999, 2}} {
		if g := pick(want, c.u); g != c.want {
			t.Errorf("pick(%v) = %d, want %d", c.u, g, c.want)
		}
	}
}

// TestMeanTurns: Σ_k Π_{j<k} p_j by hand.
func TestMeanTurns(t *testing.T) {
	for _, c := range []struct {
		p    []float64
		want float64
	}{
		{[]float64{0}, 1},
		{[]float64{0.5}, 2},
		{[]float64{1, 1, 0}, 3},
		{[]float64{0.5, 0.8}, 1 + 0.5/0.2},
	} {
		if g := (Category{NextTurn: c.p}).MeanTurns(); math.Abs(g-c.want) > 1e-12 {
			t.Errorf("MeanTurns(%v) = %v, want %v", c.p, g, c.want)
		}
	}
}

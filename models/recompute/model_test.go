package recompute

import (
	"math"
	"testing"

	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/tier"
)

func TestR0ClosedForm(t *testing.T) {
	cases := []struct {
		tc, ti, want float64
	}{
		{1, 1, 0.5},
		{3, 1, 0.25},
		{1, 3, 0.75},
		{2e-6, 1e-6, 1.0 / 3},
		{1, 0, 0},
		{0, 1, 1},
	}
	for _, c := range cases {
		p := Profile{Tc: c.tc, Ti: c.ti}
		if got := p.R0(); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("t_c=%v t_i=%v: r0 %v, want %v", c.tc, c.ti, got, c.want)
		}
	}
	// Clipping to the quality bounds.
	for _, c := range []struct{ r, want float64 }{{0.05, 0.15}, {0.4, 0.4}, {1.2, 1}} {
		if got := Clip(c.r, DefaultRMin, DefaultRMax); got != c.want {
			t.Errorf("clip %v: %v, want %v", c.r, got, c.want)
		}
	}
}

// r0 minimises the roofline: at r0 the branches are equal, and no ratio on
// a fine scan does better (the scan is the independent check).
func TestR0MinimisesModel(t *testing.T) {
	for _, p := range []Profile{{Tc: 2e-6, Ti: 1e-6, To: 1e-4}, {Tc: 1e-7, Ti: 5e-6, To: 0}, {Tc: 3e-6, Ti: 3e-6, To: 2e-3}} {
		m := Model{Profile: p, Tokens: 4096, Layers: 32}
		r0 := p.R0()
		n := float64(m.Tokens)
		if c, l := r0*n*p.Tc, (1-r0)*n*p.Ti; math.Abs(c-l) > 1e-12*math.Max(c, l) {
			t.Errorf("%+v: branches at r0 differ: %v vs %v", p, c, l)
		}
		want := float64(m.Layers) * (r0*n*p.Tc + p.To)
		if got := m.TTFT(r0); math.Abs(got-want) > 1e-12*want {
			t.Errorf("%+v: TTFT(r0) %v, want layers·(r0·N·t_c + t_o) = %v", p, got, want)
		}
		for i := 0; i <= 10000; i++ {
			r := float64(i) / 10000
			if m.TTFT(r) < m.TTFT(r0)*(1-1e-12) {
				t.Fatalf("%+v: TTFT(%v) = %v below TTFT(r0=%v) = %v", p, r, m.TTFT(r), r0, m.TTFT(r0))
			}
		}
	}
}

// Hand-worked profile of Mistral-7B at N = 4096 on an A100 at 50% (156
// TFLOP/s) loading from NVMe at 3 GB/s:
//
//	t_i = 2·8·128·2 bytes / 3e9 = 4096/3e9 s = 1.3653 µs
//	t_c = (2·7.24e9/32 + 2·32·128·4097)/156e12 = (452.5e6 + 33.56e6)/156e12 = 3.1158 µs
//	r0  = 1.3653/(1.3653 + 3.1158) = 0.3047
func TestHardwareProfile(t *testing.T) {
	cfg, _ := kvsize.Preset("mistral-7b")
	nvme, _ := tier.Lookup("nvme")
	p, err := HardwareProfile(cfg, nvme, 156e12, 4096, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	ti := 4096 / 3e9
	tc := (2*7.24e9/32 + 2*32*128*4097.0) / 156e12
	if math.Abs(p.Ti-ti) > 1e-12*ti || math.Abs(p.Tc-tc) > 1e-12*tc || p.To != 1e-4 {
		t.Errorf("profile %+v, want t_c %v t_i %v", p, tc, ti)
	}
	if math.Abs(p.R0()-0.3047) > 5e-5 {
		t.Errorf("r0 %v, want 0.3047 (hand-worked)", p.R0())
	}
	noHeads := kvsize.Config{Name: "x", Layers: 1, KVHeads: 1, HeadDim: 8, BytesPerValue: 2}
	if _, err := HardwareProfile(noHeads, nvme, 1e12, 10, 0); err == nil {
		t.Error("a config without heads and params accepted")
	}
	if _, err := HardwareProfile(cfg, nvme, 0, 10, 0); err == nil {
		t.Error("zero FLOP/s accepted")
	}
}

func TestGridAndUnimodal(t *testing.T) {
	mk := func(ys ...float64) []Point {
		p := make([]Point, len(ys))
		for i, y := range ys {
			p[i] = Point{R: float64(i), TTFT: y}
		}
		return p
	}
	cases := []struct {
		ys     []float64
		tol    float64
		ok     bool
		bumpAt float64
		excess float64
	}{
		{[]float64{3, 2, 1, 2, 3}, 0, true, 0, 0},
		{[]float64{1, 2, 3, 4}, 0, true, 0, 0},
		{[]float64{4, 3, 3, 3}, 0, true, 0, 0},
		{[]float64{1, 2, 1}, 0, false, 1, 1},
		{[]float64{2, 1, 3, 1, 2}, 0, false, 2, 2}, // 3 − max(1, 1)
		{[]float64{2, 1, 3, 1, 2}, 2, true, 2, 2},  // within the tolerance
		{[]float64{5, 1, 1.5, 1.2, 4}, 0, false, 2, 0.3},
	}
	for _, c := range cases {
		ok, b := Unimodal(mk(c.ys...), c.tol)
		if ok != c.ok || b.R != c.bumpAt || math.Abs(b.Excess-c.excess) > 1e-12 {
			t.Errorf("%v tol %v: unimodal %v bump %+v; want %v at %v by %v", c.ys, c.tol, ok, b, c.ok, c.bumpAt, c.excess)
		}
	}
	pts, err := Grid(func(r float64) (float64, error) { return (r - 0.4) * (r - 0.4), nil }, 0.2, 1, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 9 || pts[0].R != 0.2 || pts[8].R != 1 || math.Abs(ArgMin(pts).R-0.4) > 1e-12 {
		t.Errorf("grid %+v", pts)
	}
}

// Unimodal(tol = 0) against its definition: some split k with the prefix
// non-increasing and the suffix non-decreasing.
func TestUnimodalBruteForce(t *testing.T) {
	seqs := [][]float64{}
	var gen func(prefix []float64)
	gen = func(prefix []float64) { // all sequences of length ≤ 5 over {0,1,2}
		if len(prefix) > 0 {
			seqs = append(seqs, append([]float64(nil), prefix...))
		}
		if len(prefix) == 5 {
			return
		}
		for v := 0.0; v < 3; v++ {
			gen(append(prefix, v))
		}
	}
	gen(nil)
	for _, ys := range seqs {
		want := false
		for k := 0; k < len(ys) && !want; k++ {
			good := true
			for i := 1; i <= k; i++ {
				good = good && ys[i] <= ys[i-1]
			}
			for i := k + 1; i < len(ys); i++ {
				good = good && ys[i] >= ys[i-1]
			}
			want = good
		}
		pts := make([]Point, len(ys))
		for i, y := range ys {
			pts[i] = Point{R: float64(i), TTFT: y}
		}
		if got, _ := Unimodal(pts, 0); got != want {
			t.Errorf("%v: unimodal %v, want %v", ys, got, want)
		}
	}
}

func BenchmarkModelTTFT(b *testing.B) {
	m := Model{Profile: Profile{Tc: 3e-6, Ti: 1.4e-6, To: 1e-4}, Tokens: 4096, Layers: 32}
	var s float64
	for b.Loop() {
		s += m.TTFT(0.3)
	}
	_ = s
}

// BranchR0 equalises the two branches with their own intercepts (checked
// by substitution), and is r0 when the intercepts are equal.
func TestBranchR0(t *testing.T) {
	cases := []struct{ tc, ti, oc, oi float64 }{
		{5e-6, 4.5e-6, 0, 1.6e-3}, {1e-5, 1e-6, 2e-4, 1e-4}, {2e-6, 2e-6, 3e-4, 3e-4},
	}
	for _, c := range cases {
		const n = 512
		r := BranchR0(c.tc, c.ti, c.oc, c.oi, n)
		lhs, rhs := c.oc+r*n*c.tc, c.oi+(1-r)*n*c.ti
		if math.Abs(lhs-rhs) > 1e-12 {
			t.Errorf("%+v: branches at r=%v: %v vs %v", c, r, lhs, rhs)
		}
		if c.oc == c.oi && math.Abs(r-(Profile{Tc: c.tc, Ti: c.ti}).R0()) > 1e-12 {
			t.Errorf("%+v: equal intercepts give %v, want r0", c, r)
		}
	}
}

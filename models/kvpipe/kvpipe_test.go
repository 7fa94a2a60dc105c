package kvpipe

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailbound/tailbound/models/recompute"
)

// The attention work is linear in the recomputed count: k tokens spread
// evenly over N visit Σ (⌊(i+½)N/k⌋ + 1) keys, within k of k·(N/2 + 1);
// all N tokens visit N(N+1)/2 keys.
func TestKeyVisits(t *testing.T) {
	cases := []struct{ n, k int }{{1024, 1024}, {1024, 512}, {1024, 154}, {1000, 3}, {7, 7}, {512, 0}}
	for _, c := range cases {
		got := KeyVisits(c.n, c.k)
		if c.k == c.n && got != int64(c.n)*int64(c.n+1)/2 {
			t.Errorf("N=%d all tokens: %d key visits, want N(N+1)/2 = %d", c.n, got, c.n*(c.n+1)/2)
		}
		want := float64(c.k) * (float64(c.n)/2 + 1)
		if math.Abs(float64(got)-want) > float64(c.k) {
			t.Errorf("N=%d k=%d: %d key visits, want within %d of %v", c.n, c.k, got, c.k, want)
		}
	}
}

func small() Config {
	return Config{Layers: 2, MaxTokens: 128, BytesPerTokenLayer: 4096, HeadDim: 4, Dir: "", Seed: 7}
}

// The file has the configured size, runs succeed in both tiers, and Close
// deletes the temporary directory.
func TestPipelineLifecycle(t *testing.T) {
	cfg := small()
	cfg.Dir = t.TempDir()
	p, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(p.dir, "kv.bin"))
	if err != nil || fi.Size() != 2*128*4096 {
		t.Fatalf("KV file: %v, size %d, want %d bytes", err, fi.Size(), 2*128*4096)
	}
	tiers := []Tier{PageCache}
	if DiskSupported {
		tiers = append(tiers, Disk)
	}
	for _, tr := range tiers {
		for _, r := range []float64{0, 0.5, 1} {
			d, err := p.Run(tr, 128, r)
			if err != nil || d <= 0 {
				t.Errorf("%v r=%v: %v, %v", tr, r, d, err)
			}
		}
	}
	bad := []struct {
		tokens int
		r      float64
	}{{0, 0.5}, {129, 0.5}, {64, -0.1}, {64, 1.5}, {64, math.NaN()}}
	for _, b := range bad {
		if _, err := p.Run(PageCache, b.tokens, b.r); err == nil {
			t.Errorf("run %+v accepted", b)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s survives Close: %v", p.dir, err)
	}
	if err := (Config{Layers: 1, MaxTokens: 1 << 20, BytesPerTokenLayer: 1 << 14, HeadDim: 1}).Validate(); err == nil {
		t.Error("a 16 GiB file accepted")
	}
	if _, err := ParseTier("ssd"); err == nil {
		t.Error("unknown tier accepted")
	}
}

// The objective records one row per run; a search and grid on it make
// the expected number of runs: (evaluations + 2 confirmations + grid
// points) × repetitions.
func TestObjectiveRecords(t *testing.T) {
	p, err := Open(small())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var rows []recompute.Measurement
	f := p.Objective(PageCache, 128, 2, false, func(m recompute.Measurement) { rows = append(rows, m) })
	o := recompute.DefaultOptions()
	o.Eps, o.GridIntervals = 0.2, 4
	an, err := recompute.Analyze(f, 0.3, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (an.Evaluations + 2 + 5); len(rows) != want {
		t.Errorf("%d rows, want %d", len(rows), want)
	}
	for _, m := range rows {
		if m.Tier != "page-cache" || m.Tokens != 128 || m.Reps != 1 || !(m.TTFT > 0) || m.R < o.RMin || m.R > o.RMax {
			t.Fatalf("row %+v", m)
		}
	}
}

// A profile of a pipeline big enough to time: both stages cost more with
// more tokens. (Timing on a shared machine: only the signs are asserted.)
func TestFitProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("times real work")
	}
	p, err := Open(Config{Layers: 4, MaxTokens: 512, BytesPerTokenLayer: 32768, HeadDim: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// Timings on a shared machine can be swamped by other load, so a fit
	// gets three tries: a pipeline whose cost does not grow with the
	// tokens fails all three, a noisy measurement rarely does.
	var pf ProfileFit
	for try := 0; try < 3; try++ {
		pf, err = p.FitProfile(PageCache, 512, 2, 4)
		if err != nil {
			t.Fatal(err)
		}
		if pf.Compute.Slope > 0 && pf.Load.Slope > 0 && pf.Bandwidth > 0 {
			return
		}
	}
	t.Errorf("profile %+v: slopes must be positive (3 tries)", pf)
}

func BenchmarkAttend(b *testing.B) {
	p, err := Open(Config{Layers: 1, MaxTokens: 1024, BytesPerTokenLayer: 1, HeadDim: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		p.attend(1024, 256)
	}
	b.ReportMetric(float64(KeyVisits(1024, 256))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mkeys/s")
}

func BenchmarkRunPageCache(b *testing.B) {
	p, err := Open(Config{Layers: 8, MaxTokens: 1024, BytesPerTokenLayer: 16384, HeadDim: 16, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for b.Loop() {
		if _, err := p.Run(PageCache, 1024, 0.3); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMedian(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 4}, 4}, {[]float64{9, 1, 2, 8}, 5}, {[]float64{2, 2, 100, 2, 1}, 2}}
	for _, c := range cases {
		if got := median(append([]float64(nil), c.xs...)); got != c.want {
			t.Errorf("median %v = %v, want %v", c.xs, got, c.want)
		}
	}
}

// Confirm measures each distinct ratio once per round and keeps every name.
func TestConfirm(t *testing.T) {
	p, err := Open(small())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cs, err := p.Confirm(PageCache, 128, []string{"r0", "grid best", "r* paper"}, []float64{0.15, 0.5, 0.15}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || len(cs[0].Names) != 2 || cs[0].R != 0.15 || !(cs[0].TTFT > 0) || !(cs[1].SE >= 0) {
		t.Fatalf("candidates %+v", cs)
	}
	if c, ok := FindCandidate(cs, "r* paper"); !ok || c.R != 0.15 {
		t.Errorf("r* paper: %+v %v", c, ok)
	}
	if b := BestCandidate(cs); b.TTFT > cs[0].TTFT || b.TTFT > cs[1].TTFT {
		t.Errorf("best %+v is not the least", b)
	}
	if _, err := p.Confirm(PageCache, 128, []string{"a"}, []float64{0.2}, 1); err == nil {
		t.Error("one round accepted")
	}
}

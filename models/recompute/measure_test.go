package recompute

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestReadMeasurements(t *testing.T) {
	in := "# measured on box A\n" +
		"tier,r,ttft_s,reps,tokens\n" +
		"nvme,0.2,0.50,2,4096\n" +
		"nvme,0.2,0.80,1,4096\n" +
		"nvme,0.6,0.40,3,4096\n" +
		"hdd,0.6,1.5,1,4096\n" +
		"nvme,0.4,0.30,1,8192\n"
	ms, err := ReadMeasurements(strings.NewReader(in), "m.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 5 || ms[0].Line != 3 || ms[0].Reps != 2 || ms[0].Tokens != 4096 || ms[3].Tier != "hdd" {
		t.Fatalf("parsed %+v", ms)
	}
	cs := Curves(ms)
	if len(cs) != 3 || cs[0].Label() != "nvme@4096" || cs[1].Label() != "hdd@4096" || cs[2].Label() != "nvme@8192" {
		t.Fatalf("curves %+v", cs)
	}
	// r = 0.2: run-weighted mean (2·0.5 + 0.8)/3 = 0.6; rows 0.5 and 0.8
	// around 0.6: SE = sqrt(((0.1)² + (0.2)²)/1/2) = sqrt(0.025).
	p := cs[0].Points[0]
	if math.Abs(p.TTFT-0.6) > 1e-12 || p.Reps != 3 || math.Abs(p.SE-math.Sqrt(0.025)) > 1e-12 {
		t.Errorf("mean point %+v, want TTFT 0.6, 3 reps, SE %v", p, math.Sqrt(0.025))
	}
	// Linear interpolation between r = 0.2 (0.6 s) and 0.6 (0.4 s).
	f := cs[0].Objective()
	if y, err := f(0.3); err != nil || math.Abs(y-0.55) > 1e-12 {
		t.Errorf("f(0.3) = %v, %v; want 0.55", y, err)
	}
	if _, err := f(0.7); err == nil {
		t.Error("f outside the measured range accepted")
	}
	// Round trip through the writer.
	var buf bytes.Buffer
	if err := WriteMeasurements(&buf, ms); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMeasurements(&buf, "back.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range ms {
		a, b := ms[i], back[i]
		if a.Tier != b.Tier || a.R != b.R || a.TTFT != b.TTFT || a.Reps != b.Reps || a.Tokens != b.Tokens {
			t.Errorf("row %d: %+v became %+v", i, a, b)
		}
	}
}

func TestReadMeasurementsErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "m.csv: empty"},
		{"tier,ratio,ttft_s\n", `m.csv:1: header must name`},
		{"tier,r,ttft_s,r\n", `m.csv:1: column "r" appears twice`},
		{"tier,r,ttft_s\n", "no measurements"},
		{"tier,r,ttft_s\nnvme,0.5,0.2\nnvme,1.5,0.2\n", `m.csv:3: field "r"`},
		{"tier,r,ttft_s\nnvme,0.5,-1\n", `m.csv:2: field "ttft_s"`},
		{"tier,r,ttft_s\nnvme,0.5,NaN\n", `m.csv:2: field "ttft_s"`},
		{"tier,r,ttft_s\n,0.5,0.1\n", `m.csv:2: field "tier": empty`},
		{"tier,r,ttft_s\nnvme,0.5\n", `m.csv:2: field "ttft_s": missing`},
		{"tier,r,ttft_s,reps\nnvme,0.5,0.1,2.5\n", `m.csv:2: field "reps"`},
		{"tier,r,ttft_s,tokens\nnvme,0.5,0.1,0\n", `m.csv:2: field "tokens"`},
		{"# c\n\ntier,r,ttft_s\nnvme,x,0.1\n", `m.csv:4: field "r"`},
		{"tier,r,ttft_s\n\"nvme,0.5,0.1\n", "m.csv:2:"},
	}
	for _, c := range cases {
		_, err := ReadMeasurements(strings.NewReader(c.in), "m.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want one line containing %q", c.in, err, c.want)
		}
	}
}

func FuzzReadMeasurements(f *testing.F) {
	f.Add([]byte("tier,r,ttft_s\nnvme,0.5,0.2\n"))
	f.Add([]byte("tokens,reps,ttft_s,r,tier\n4096,3,0.1,0,hdd\n4096,3,0.1,1,hdd\n"))
	f.Add([]byte("tier,r,ttft_s\n\"x\n"))
	f.Add([]byte("tier,r,ttft_s\nnvme,1e-400,0.2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := ReadMeasurements(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q: want one line starting with the file name", err)
			}
			return
		}
		for _, m := range ms {
			if m.Tier == "" || !(m.R >= 0 && m.R <= 1) || !(m.TTFT > 0) || m.Reps < 1 || m.Tokens < 0 || m.Line < 2 {
				t.Fatalf("accepted %+v", m)
			}
		}
		for _, c := range Curves(ms) {
			for i := 1; i < len(c.Points); i++ {
				if !(c.Points[i].R > c.Points[i-1].R) {
					t.Fatalf("curve %s not strictly increasing in r", c.Label())
				}
			}
		}
	})
}

// Exact points on a known roofline are fitted back exactly; r0 follows.
func TestFitRooflineExact(t *testing.T) {
	cases := []Profile{
		{Tc: 2e-6, Ti: 1e-6, To: 1e-4}, // r0 = 1/3
		{Tc: 1e-6, Ti: 4e-6, To: 0},    // r0 = 0.8
		{Tc: 5e-7, Ti: 5e-7, To: 3e-3}, // r0 = 0.5
	}
	for _, p := range cases {
		m := Model{Profile: p, Tokens: 2048, Layers: 8}
		var pts []CurvePoint
		for i := 0; i <= 10; i++ {
			r := float64(i) / 10
			pts = append(pts, CurvePoint{R: r, TTFT: m.TTFT(r), Reps: 1 + i%3})
		}
		f, err := FitRoofline(pts, m.Tokens, m.Layers)
		if err != nil {
			t.Fatal(err)
		}
		const rel = 1e-8 // exact data: only the QR's rounding
		if math.Abs(f.Tc-p.Tc) > rel*p.Tc || math.Abs(f.Ti-p.Ti) > rel*p.Ti || math.Abs(f.To-p.To) > rel*math.Max(p.To, 1e-6) ||
			!f.Consistent || f.RMSE > 1e-12 {
			t.Errorf("fit %+v, want %+v", f, p)
		}
		if math.Abs(f.R0()-p.R0()) > 1e-8 {
			t.Errorf("fitted r0 %v, want %v", f.R0(), p.R0())
		}
	}
	if _, err := FitRoofline([]CurvePoint{{R: 0, TTFT: 1}, {R: 1, TTFT: 1}}, 10, 1); err == nil {
		t.Error("a two-point fit accepted")
	}
}

// A concave curve (a hump) has no roofline shape: every split wants a
// negative slope on one branch, and the fit says so.
func TestFitRooflineInconsistent(t *testing.T) {
	var pts []CurvePoint
	for i := 0; i <= 6; i++ {
		r := float64(i) / 6
		pts = append(pts, CurvePoint{R: r, TTFT: 1 + 0.5*math.Sin(math.Pi*r), Reps: 1})
	}
	f, err := FitRoofline(pts, 100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f.Consistent {
		t.Errorf("fit %+v called consistent", f)
	}
}

func TestFitLine(t *testing.T) {
	l, err := FitLine([]float64{0, 1, 2, 4}, []float64{3, 5, 7, 11})
	if err != nil || math.Abs(l.Slope-2) > 1e-12 || math.Abs(l.Intercept-3) > 1e-12 || math.Abs(l.R2-1) > 1e-12 {
		t.Errorf("line %+v, %v; want 3 + 2x, R² 1", l, err)
	}
	if _, err := FitLine([]float64{1, 1}, []float64{1, 2}); err == nil {
		t.Error("equal x accepted")
	}
	// Constant y: R² is 0/0 by its formula; the flat line is exact, so 1
	// (and a finite value, which JSON output requires).
	if l, err := FitLine([]float64{1, 2, 3}, []float64{5, 5, 5}); err != nil || l.Slope != 0 || l.Intercept != 5 || l.R2 != 1 {
		t.Errorf("constant y: line %+v, %v; want 5 + 0x, R² 1", l, err)
	}
}

// Analyze on a curve with two dips reports it is not unimodal.
func TestAnalyzeNotUnimodal(t *testing.T) {
	f := func(r float64) (float64, error) { return 1 + 0.2*math.Cos(4*math.Pi*r), nil }
	o := DefaultOptions()
	an, err := Analyze(f, 0.2, o)
	if err != nil {
		t.Fatal(err)
	}
	if an.Unimodal || an.Bump.Excess < 0.1 {
		t.Errorf("analysis %+v should find the bump", an)
	}
}

func BenchmarkFitRoofline(b *testing.B) {
	m := Model{Profile: Profile{Tc: 2e-6, Ti: 1e-6, To: 1e-4}, Tokens: 2048, Layers: 8}
	var pts []CurvePoint
	for i := 0; i <= 16; i++ {
		r := 0.15 + 0.85*float64(i)/16
		pts = append(pts, CurvePoint{R: r, TTFT: m.TTFT(r), Reps: 3})
	}
	for b.Loop() {
		if _, err := FitRoofline(pts, 2048, 8); err != nil {
			b.Fatal(err)
		}
	}
}

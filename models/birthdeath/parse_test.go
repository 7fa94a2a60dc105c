package birthdeath

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDist(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(`{"t":0,"conv":"a","prompt":5,"response":7}
{"t":1,"conv":"a","prompt":9,"response":0}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		spec, field string
		min         int64
		want        string // String() of the result, "" for an error
		mean        float64
	}{
		{"fixed:12", "prompt", 1, "fixed(12)", 12},
		{"fixed:0", "prompt", 1, "", 0},
		{"fixed:0", "response", 0, "fixed(0)", 0},
		{"geometric:50", "prompt", 1, "geometric(min=1,mean=50)", 50},
		{"geometric:0.5", "prompt", 1, "", 0},
		{"lognormal:5,1", "prompt", 1, "lognormal(mu=5,sigma=1,min=1)", math.Exp(5.5)},
		{"lognormal:5,-1", "prompt", 1, "", 0},
		{"lognormal:5", "prompt", 1, "", 0},
		{"empirical:" + path, "prompt", 1, "empirical(n=2)", 7},
		{"empirical:" + path, "response", 0, "empirical(n=2)", 3.5},
		{"empirical:" + filepath.Join(dir, "missing"), "prompt", 1, "", 0},
		{"uniform:3", "prompt", 1, "", 0},
		{"12", "prompt", 1, "", 0},
	}
	for _, c := range cases {
		d, err := ParseDist(c.spec, c.field, c.min)
		if c.want == "" {
			if err == nil {
				t.Errorf("%q accepted as %v", c.spec, d)
			} else if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: multi-line error %q", c.spec, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if d.String() != c.want || math.Abs(d.Mean()-c.mean) > 1e-9*c.mean {
			t.Errorf("%q = %v mean %v, want %s mean %v", c.spec, d, d.Mean(), c.want, c.mean)
		}
	}
}

func TestParseRates(t *testing.T) {
	cases := []struct {
		spec string
		want []RateClass
	}{
		{"0.05:1,0.0167:3", []RateClass{{0.05, 1}, {0.0167, 3}}},
		{"0.1", []RateClass{{0.1, 1}}},
		{"0.1:0", nil},
		{"-1:1", nil},
		{"", nil},
		{"x:1", nil},
	}
	for _, c := range cases {
		got, err := ParseRates(c.spec)
		if c.want == nil {
			if err == nil {
				t.Errorf("%q accepted as %v", c.spec, got)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%q = %v, %v; want %v", c.spec, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q = %v, want %v", c.spec, got, c.want)
			}
		}
	}
	if g, err := ParseGamma("2:0.05"); err != nil || g.Shape != 2 || g.MeanRate != 0.05 || math.Abs(g.Beta()-40) > 1e-12 {
		t.Errorf("gamma 2:0.05 = %+v, %v", g, err)
	}
	for _, bad := range []string{"2", "0:1", "1:-1", "a:b"} {
		if _, err := ParseGamma(bad); err == nil {
			t.Errorf("gamma %q accepted", bad)
		}
	}
}

// FuzzParseDist checks that no specification makes the parsers panic and
// that what they accept samples lengths at or above the minimum.
func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"fixed:3", "geometric:2.5", "lognormal:1,0.5", "empirical:/nonexistent", "lognormal:,", "fixed:-9", "0.1:2,0.3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "empirical:") && spec != "empirical:/nonexistent" {
			return // do not read arbitrary files
		}
		d, err := ParseDist(spec, "prompt", 1)
		if err == nil {
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < 10; i++ {
				if v := d.Sample(r); v < 1 {
					t.Fatalf("%q sampled %d < 1", spec, v)
				}
			}
		}
		if cl, err := ParseRates(spec); err == nil {
			for _, c := range cl {
				if !(c.Rate > 0 && c.Weight > 0) {
					t.Fatalf("%q accepted class %+v", spec, c)
				}
			}
		}
		_, _ = ParseGamma(spec)
	})
}

// TestLengthBounds: distributions whose draws would pass the 2^40-token
// bound of a turn are refused where parsed (lognormal:43,1 drew lengths up
// to 9.2·10^18 and lognormal:200,1 overflowed to 1 token), and a draw far
// in an accepted tail is clamped to the bound.
func TestLengthBounds(t *testing.T) {
	for _, spec := range []string{"lognormal:200,1", "lognormal:43,1", "lognormal:0,7", "geometric:1e11", "fixed:1099511627777"} {
		if d, err := ParseDist(spec, "prompt", 1); err == nil {
			t.Errorf("%s accepted as %v", spec, d)
		}
	}
	// e^(21.7 + 5.998) ≈ 1.07·10^12 < 2^40 ≈ 1.0995·10^12: accepted.
	d, err := ParseDist("lognormal:21.7,1", "prompt", 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100000; i++ {
		if v := d.Sample(r); v < 1 || v > MaxLength {
			t.Fatalf("draw %d outside [1, 2^40]", v)
		}
	}
	if v := (LogNormal{Mu: 40, Sigma: 0, Min: 1}).Sample(r); v != MaxLength {
		t.Errorf("e^40 tokens clamped to %d, want 2^40", v)
	}
}

// TestPMFAtomBound: a log-normal with a wide tail is refused by PMF rather
// than enumerated atom by atom (lognormal:0,7 ran for hours; lognormal:15,1
// is within the length bound but needs e^(15+4.3) ≈ 2.4·10^8 atoms at
// tail mass 10⁻⁵).
func TestPMFAtomBound(t *testing.T) {
	if _, err := PMF(LogNormal{Mu: 15, Sigma: 1, Min: 1}, 1e-5); err == nil {
		t.Error("lognormal(15, 1) enumerated")
	}
	a, err := PMF(LogNormal{Mu: 3, Sigma: 0.5, Min: 1}, 1e-6)
	if err != nil || len(a.Values) == 0 {
		t.Errorf("lognormal(3, 0.5): %v", err)
	}
}

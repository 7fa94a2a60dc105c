package birthdeath

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestParseAtoms reads pmf and other specifications into atoms and checks
// them against the atoms written by hand.
func TestParseAtoms(t *testing.T) {
	tests := []struct {
		spec   string
		min    int64
		values []int64
		probs  []float64
	}{
		{"pmf:1:0.25,3:0.75", 1, []int64{1, 3}, []float64{0.25, 0.75}},
		{"pmf: 3:0.5, 0:0.5", 1, []int64{3, 0}, []float64{0.5, 0.5}}, // order kept, 0 allowed whatever min
		{"fixed:0", 0, []int64{0}, []float64{1}},
		{"fixed:7", 1, []int64{7}, []float64{1}},
		{"geometric:1", 1, []int64{1}, []float64{1}}, // mean = min: always min
	}
	for _, tc := range tests {
		a, err := ParseAtoms(tc.spec, "prompt", tc.min, 1e-9)
		if err != nil || !slices.Equal(a.Values, tc.values) || !slices.Equal(a.Probs, tc.probs) {
			t.Errorf("%q: %+v, %v; want %v %v", tc.spec, a, err, tc.values, tc.probs)
		}
	}
	for _, bad := range []struct{ spec, want string }{
		{"pmf:1:0.5", "probabilities sum to 0.5, not 1"},
		{"pmf:-1:1", `atom "-1:1"`},
		{"pmf:1", `atom "1"`},
		{"pmf:1:NaN", `atom "1:NaN"`},
		{"pmf:1:+Inf,2:0", `atom "1:+Inf"`},
		{"fixed:0", "N must be an integer from 1 to 2^40 tokens"},
		{"uniform:3", "unknown kind"},
	} {
		if _, err := ParseAtoms(bad.spec, "prompt", 1, 1e-9); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want one containing %q", bad.spec, err, bad.want)
		}
	}
}

// TestNormalized: {3: 0.25, 1: 0.5, 3: 0.25} is {1: 0.5, 3: 0.5}; atoms
// summing to 1 + 1e-10 are divided by that sum.
func TestNormalized(t *testing.T) {
	n, err := Atoms{Values: []int64{3, 1, 3}, Probs: []float64{0.25, 0.5, 0.25}}.Normalized()
	if err != nil || !slices.Equal(n.Values, []int64{1, 3}) || !slices.Equal(n.Probs, []float64{0.5, 0.5}) {
		t.Errorf("merged %+v, %v; want values [1 3], probabilities [0.5 0.5]", n, err)
	}
	n, err = Atoms{Values: []int64{2}, Probs: []float64{1 + 1e-10}}.Normalized()
	if err != nil || n.Probs[0] != 1 {
		t.Errorf("one atom of 1+1e-10: %+v, %v; want probability 1", n, err)
	}
	if _, err := (Atoms{Values: []int64{1, 2}, Probs: []float64{1}}).Normalized(); err == nil {
		t.Error("two values with one probability accepted")
	}
}

// TestAtomsSampleMean: the mean of {0: 0.25, 4: 0.75} is 3; sampling
// hits each atom with its probability (200000 draws, within 5 binomial
// standard deviations: 5·√(n·0.25·0.75) ≈ 968).
func TestAtomsSampleMean(t *testing.T) {
	a := Atoms{Values: []int64{0, 4}, Probs: []float64{0.25, 0.75}}
	if a.Mean() != 3 {
		t.Errorf("mean %v, want 3", a.Mean())
	}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	zeros := 0
	for i := 0; i < n; i++ {
		switch a.Sample(r) {
		case 0:
			zeros++
		case 4:
		default:
			t.Fatal("sampled a length that is not an atom")
		}
	}
	if d := zeros - n/4; d > 968 || d < -968 {
		t.Errorf("%d zeros in %d draws, want %d ± 968", zeros, n, n/4)
	}
	if a.String() != "pmf:0:0.25,4:0.75" {
		t.Errorf("String %q", a.String())
	}
}

// FuzzParseAtoms: no pmf or fixed specification makes the parser panic;
// accepted atoms validate and their String reads back to the same atoms.
// (Other kinds are ParseDist's and PMF's, tested there; a log-normal of
// large σ has too many atoms above a small tail mass to enumerate.)
func FuzzParseAtoms(f *testing.F) {
	for _, s := range []string{"pmf:1:0.5,2:0.5", "fixed:3", "pmf::", "pmf:1:1e400", "pmf:1:0.1,2:0.2,3:0.7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if !strings.HasPrefix(spec, "pmf:") && !strings.HasPrefix(spec, "fixed:") {
			return
		}
		a, err := ParseAtoms(spec, "prompt", 1, 1e-6)
		if err != nil {
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("%q accepted but invalid: %v", spec, err)
		}
		if b, err := ParseAtoms(a.String(), "prompt", 1, 1e-6); err != nil || !slices.Equal(a.Values, b.Values) || !slices.Equal(a.Probs, b.Probs) {
			t.Fatalf("%q: %v read back as %v, %v", spec, a, b, err)
		}
	})
}

// A pmf specification is read as written; Normalized sorts and merges.
func ExampleParseAtoms() {
	a, err := ParseAtoms("pmf:300:0.25,100:0.5,300:0.25", "prompt", 1, 1e-12)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _ := a.Normalized()
	fmt.Println(a, a.Mean())
	fmt.Println(n)
	// Output:
	// pmf:300:0.25,100:0.5,300:0.25 200
	// pmf:100:0.5,300:0.5
}

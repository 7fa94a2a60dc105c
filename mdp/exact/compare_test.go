package exact

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestDeciders(t *testing.T) {
	if got, want := DeciderNames(), []string{"lru", "tlru", "etlru-paper", "etlru-bayes"}; !slices.Equal(got, want) {
		t.Errorf("DeciderNames() = %v, want %v", got, want)
	}
	ds, err := Deciders(" tlru,,etlru-bayes ", 7)
	if err != nil || len(ds) != 2 || ds[0] != (TLRU{QHat: 7}) || ds[1] != (ETLRU{Belief: Bayes}) {
		t.Errorf("Deciders = %v, %v", ds, err)
	}
	if _, err := Deciders("lru,foo", 1); err == nil || !strings.Contains(err.Error(), `unknown policy "foo" (want lru, tlru, etlru-paper, etlru-bayes)`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// Compare's optimum row is the brute-force optimum, and every policy's gap
// is its value less that optimum, never negative.
func TestCompareAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 30; k++ {
		seats := 1 + r.IntN(2)
		in := randomInstance(r, seats, 1+r.IntN(5-seats))
		ds, _ := Deciders(strings.Join(DeciderNames(), ","), 2)
		rows, err := Compare(in, ds)
		if err != nil {
			t.Fatal(err)
		}
		bf, err := BruteForce(in)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0].Name != "optimum" || math.Abs(rows[0].Value-bf) > 1e-9*(1+bf) || len(rows) != 1+len(ds) {
			t.Fatalf("instance %d: rows %+v, brute force %v", k, rows, bf)
		}
		for _, row := range rows[1:] {
			if row.Gap < -1e-9*(1+bf) || math.Abs(row.Value-bf-row.Gap) > 1e-9*(1+bf) {
				t.Errorf("instance %d: %s value %v gap %v against optimum %v", k, row.Name, row.Value, row.Gap, bf)
			}
		}
	}
}

package window

import (
	"reflect"
	"testing"
)

// TestSpread: thresholds split (x − 1, y + 1) into m + 1 steps, worked by
// hand.
func TestSpread(t *testing.T) {
	for _, tc := range []struct {
		x, y, m int64
		want    []int64
	}{
		{1, 10, 3, []int64{2, 5, 8}},   // (0, 11) in steps of 11/4
		{0, 99, 1, []int64{49}},        // the midpoint of (−1, 100), rounded down
		{5, 7, 5, []int64{5, 6, 7}},    // fewer left than asked: all
		{5, 7, 3, []int64{5, 6, 7}},    // exactly as many
		{3, 2, 1, nil},                 // none left
		{1, 19, 3, []int64{5, 10, 15}}, // (0, 20) in steps of 5
	} {
		if got := spread(tc.x, tc.y, tc.m); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("spread(%d, %d, %d) = %v, want %v", tc.x, tc.y, tc.m, got, tc.want)
		}
	}
}

// TestPlan: the next round's thresholds, worked by hand. After [1, 20]
// with 3 a round: 5, 10, 15. If 5 was too low, 10 undecided and 15
// achieved ([6, 15]), round 2 (odd: the odd threshold to the upper part)
// seeks a proof in [6, 9] (one threshold: 7) and a schedule in [11, 14]
// (two: 11, 13); with a budget of 4 probes only one is left, and it goes
// to the upper part: 12. With 1 a round on round 3 (even), it goes to the
// lower part: 7.
func TestPlan(t *testing.T) {
	first := &Rounds{PerRound: 3}
	first.Lower, first.Upper = 1, 20
	first.plan()
	if !reflect.DeepEqual(first.Next, []int64{5, 10, 15}) {
		t.Errorf("first round %v, want [5 10 15]", first.Next)
	}
	done := []GridProbe{{Tau: 5, Decided: "too low"}, {Tau: 10, Decided: "undecided"}, {Tau: 15, Decided: "achieved"}}
	for _, tc := range []struct {
		perRound, maxProbes int
		rounds              [][]GridProbe
		want                []int64
	}{
		{3, 0, [][]GridProbe{done}, []int64{7, 11, 13}},
		{3, 4, [][]GridProbe{done}, []int64{12}},
		{3, 3, [][]GridProbe{done}, nil},
		{1, 0, [][]GridProbe{done, {{Tau: 12, Decided: "undecided"}}}, []int64{7}},
	} {
		r := &Rounds{PerRound: tc.perRound, MaxProbes: tc.maxProbes, Done: tc.rounds}
		r.Lower, r.Upper = 6, 15
		r.plan()
		if !reflect.DeepEqual(r.Next, tc.want) {
			t.Errorf("%d a round, budget %d, %d rounds: %v, want %v", tc.perRound, tc.maxProbes, len(tc.rounds), r.Next, tc.want)
		}
	}
}

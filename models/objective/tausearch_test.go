package objective

import (
	"context"
	"testing"

	"pgregory.net/rapid"
)

// A search against an oracle that knows the optimum P (τ achievable iff
// τ ≥ P) and answers each probe truthfully or, when it may, undecided
// (drawn; always undecided where the probe's mode cannot decide, as the
// solvers' probes are): the final interval always holds P (Lo < P ≤ Hi),
// no probe is made outside (Lo, Hi) or twice at one τ, and with an oracle
// that always decides the search closes (Hi = P, Lo = P − 1) within the
// probes of plain bisection, ⌈log2(Hi − Lo)⌉.
func TestTauSearchOracle(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		lo := rapid.Int64Range(-1, 50).Draw(rt, "lo")
		hi := rapid.Int64Range(lo+1, lo+500).Draw(rt, "hi")
		p := rapid.Int64Range(lo+1, hi).Draw(rt, "optimum")
		decides := rapid.Bool().Draw(rt, "always decides")
		s := TauSearch[int64]{Lo: lo, Hi: hi}
		seen := map[int64]bool{}
		err := s.Run(context.Background(), nil, func(tau int64, mode ProbeMode) (Verdict, error) {
			if tau <= s.Lo || tau >= s.Hi {
				rt.Fatalf("probe at %d outside (%d, %d)", tau, s.Lo, s.Hi)
			}
			if seen[tau] {
				rt.Fatalf("probe at %d twice", tau)
			}
			seen[tau] = true
			if !decides && rapid.Bool().Draw(rt, "undecided") {
				return Undecided, nil
			}
			if tau >= p {
				if mode == ProofsOnly {
					return Undecided, nil // it looks for no schedule
				}
				return Achieved, nil
			}
			if mode == SchedulesOnly {
				return Undecided, nil // it solves no lower bound
			}
			return TooLow, nil
		})
		if err != nil {
			rt.Fatal(err)
		}
		if !(s.Lo < p && p <= s.Hi) {
			rt.Fatalf("optimum %d outside (%d, %d]", p, s.Lo, s.Hi)
		}
		if decides {
			if s.Lo != p-1 || s.Hi != p {
				rt.Fatalf("an oracle that always decides left (%d, %d], optimum %d", s.Lo, s.Hi, p)
			}
			bound := 0
			for w := hi - lo; w > 1; w = (w + 1) / 2 {
				bound++
			}
			if s.Probes > bound {
				rt.Fatalf("%d probes over (%d, %d], bisection needs at most %d", s.Probes, lo, hi, bound)
			}
		}
	})
}

// Hand-worked: optimum 5 in (0, 8]. Probes at 4 (too low), 6 (undecided:
// split into (4, 6) proofs only and (6, 8) schedules only), then 7
// (achieved: Hi = 7) and 5 (a proofs-only probe, undecided) — interval
// (4, 7], two undecided, four probes.
func TestTauSearchHandWorked(t *testing.T) {
	s := TauSearch[int]{Lo: 0, Hi: 8}
	var order []int
	var modes []ProbeMode
	err := s.Run(context.Background(), nil, func(tau int, mode ProbeMode) (Verdict, error) {
		order = append(order, tau)
		modes = append(modes, mode)
		switch tau {
		case 4:
			return TooLow, nil
		case 7:
			return Achieved, nil
		}
		return Undecided, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 6, 7, 5}
	wantModes := []ProbeMode{EitherWay, EitherWay, SchedulesOnly, ProofsOnly}
	if len(order) != len(want) {
		t.Fatalf("probes %v, want %v", order, want)
	}
	for k := range want {
		if order[k] != want[k] || modes[k] != wantModes[k] {
			t.Fatalf("probes %v modes %v, want %v %v", order, modes, want, wantModes)
		}
	}
	if s.Lo != 4 || s.Hi != 7 || s.Undecided != 2 || s.Probes != 4 {
		t.Fatalf("got (%d, %d], %d undecided, %d probes; want (4, 7], 2, 4", s.Lo, s.Hi, s.Undecided, s.Probes)
	}
}

// A done context stops the search before any probe; the interval is the
// one given.
func TestTauSearchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := TauSearch[int64]{Lo: 0, Hi: 100}
	if err := s.Run(ctx, nil, func(int64, ProbeMode) (Verdict, error) {
		t.Fatal("probed after cancel")
		return Undecided, nil
	}); err != nil || s.Lo != 0 || s.Hi != 100 || s.Probes != 0 {
		t.Fatalf("got (%d, %d], %d probes, err %v", s.Lo, s.Hi, s.Probes, err)
	}
}

// TestTauSearchMaxProbes: with P = 37 in (0, 100] and a truthful oracle,
// bisection probes 50 (achieved), 25 (too low), 37 (achieved): three
// probes leave (25, 37], worked by hand; MaxProbes 2 stops at (25, 50].
func TestTauSearchMaxProbes(t *testing.T) {
	for _, c := range []struct {
		max, probes int
		lo, hi      int
	}{{2, 2, 25, 50}, {3, 3, 25, 37}} {
		s := TauSearch[int]{Lo: 0, Hi: 100, MaxProbes: c.max}
		err := s.Run(context.Background(), nil, func(tau int, _ ProbeMode) (Verdict, error) {
			if tau >= 37 {
				return Achieved, nil
			}
			return TooLow, nil
		})
		if err != nil || s.Probes != c.probes || s.Lo != c.lo || s.Hi != c.hi {
			t.Errorf("MaxProbes %d: (%d, %d] after %d probes (err %v), want (%d, %d] after %d", c.max, s.Lo, s.Hi, s.Probes, err, c.lo, c.hi, c.probes)
		}
	}
}

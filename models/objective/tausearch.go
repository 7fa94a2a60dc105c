package objective

import "context"

// A percentile is found by a search over a threshold τ on the SLO problem:
// P_Q ≤ τ iff some schedule has at most n − Rank(n, Q) values above τ, and
// the fewest such values never increase with τ. A probe at τ bounds that
// fewest count: an achieving schedule proves P_Q ≤ τ, a lower bound above
// the allowance proves P_Q > τ (and so for every smaller τ), and a probe
// whose bounds straddle the allowance decides neither. TauSearch holds the
// part of that search every level shares (lp/slo at turn level,
// lp/prefixtail at block level): which open intervals of τ are left and
// what a probe in each can still decide.

// ProbeMode says what a probe can still decide in an interval of τ.
type ProbeMode int

const (
	// EitherWay: a probe may prove τ achievable or too low.
	EitherWay ProbeMode = iota
	// ProofsOnly: the interval lies below an undecided probe, so no
	// schedule achieving its τ is to be found where the one above found
	// none (a smaller τ is no easier to achieve); only a lower bound
	// proving τ too low can decide it.
	ProofsOnly
	// SchedulesOnly: the interval lies above an undecided probe, whose
	// lower bound did not prove it too low, nor will it prove a larger τ
	// too low; only a schedule achieving τ can decide it.
	SchedulesOnly
)

// Verdict is what a probe decided.
type Verdict int

const (
	// Undecided: neither proven.
	Undecided Verdict = iota
	// Achieved: a schedule shows P_Q ≤ τ.
	Achieved
	// TooLow: a lower bound shows P_Q > τ.
	TooLow
)

// TauSearch narrows the interval (Lo, Hi] that holds the optimum of a
// percentile: Lo is the largest τ proven too low (P_Q > Lo), Hi the
// smallest proven achievable (P_Q ≤ Hi). T is the unit of τ: tokens, or an
// index into a sorted list of candidate values.
type TauSearch[T ~int | ~int64] struct {
	Lo, Hi T
	// Probes counts the probes made by Run; Undecided those that decided
	// neither way.
	Probes, Undecided int
	// MaxProbes, when > 0, stops Run once Probes reaches it (the interval
	// is then wider, still valid).
	MaxProbes int
}

// Run probes until every τ in (Lo, Hi) is decided or left undecidable,
// MaxProbes are made, or ctx is done; Lo and Hi are the interval reached, valid in either case.
//
// pick (nil: the midpoint) chooses the next τ strictly inside (a, b), the
// open interval of a span clipped to (Lo, Hi); mode is what a probe there
// can still decide. probe decides τ. It may lower s.Hi itself (to a
// schedule's own percentile, which can be below τ); a probe that leaves
// s.Hi ≤ τ counts as Achieved whatever it returns. Run raises Lo to τ on
// TooLow and lowers Hi to τ on Achieved, and splits an undecided probe's
// interval: below it only proofs are sought (ProofsOnly), above it only
// schedules (SchedulesOnly), since the fewest violations are monotone in
// τ.
func (s *TauSearch[T]) Run(ctx context.Context, pick func(a, b T, mode ProbeMode) T, probe func(tau T, mode ProbeMode) (Verdict, error)) error {
	type span struct {
		a, b T // open interval of τ still to decide
		mode ProbeMode
	}
	work := []span{{s.Lo, s.Hi, EitherWay}}
	for len(work) > 0 && ctx.Err() == nil && (s.MaxProbes <= 0 || s.Probes < s.MaxProbes) {
		sp := work[len(work)-1]
		work = work[:len(work)-1]
		a, b := max(sp.a, s.Lo), min(sp.b, s.Hi)
		if b-a <= 1 {
			continue
		}
		mid := a + (b-a)/2
		if pick != nil {
			mid = min(max(pick(a, b, sp.mode), a+1), b-1)
		}
		s.Probes++
		v, err := probe(mid, sp.mode)
		if err != nil {
			return err
		}
		switch {
		case v == Achieved || s.Hi <= mid:
			s.Hi = min(s.Hi, mid)
			work = append(work, span{a, mid, sp.mode})
		case v == TooLow:
			s.Lo = mid
			work = append(work, span{mid, b, sp.mode})
		default:
			s.Undecided++
			switch sp.mode {
			case EitherWay:
				work = append(work, span{a, mid, ProofsOnly}, span{mid, b, SchedulesOnly})
			case ProofsOnly:
				work = append(work, span{a, mid, ProofsOnly})
			case SchedulesOnly:
				work = append(work, span{mid, b, SchedulesOnly})
			}
		}
	}
	return nil
}

// Package checks states SPEC §6 claims 4–7 — Lemma 1, the corollaries of
// Theorem 2, Theorem 2 itself and the belief — as seeded random checks
// with shrinkable counterexamples (proofs-check/claim), which 'tailbound
// check' runs with the rest. Each claim draws an instance from a
// *rand.Rand, checks it with a solver independent of the code under test
// (an exact dynamic program, the exact belief-MDP solver, a second policy,
// Monte Carlo), and explains a failure with the values on both sides. A
// failing claim is a result.
package checks

// Sizes bound the random instances.
type Sizes struct {
	// Seats is the largest number of conversation seats of an MDP instance
	// (2 or 3).
	Seats int
	// Horizon is the largest MDP horizon, steps.
	Horizon int
	// Items is the largest number of conversations of a one-step problem.
	Items int
	// Turns is the largest number of turns of a trace instance.
	Turns int
}

// DefaultSizes are the sizes 'tailbound check' uses unless told otherwise.
// On this 2-core machine 200 instances take milliseconds per one-step or
// trace claim and 1–8 s per Theorem 2 scope (instances of 3 seats and 6
// steps dominate); the belief claims take about 0.1 s per instance.
func DefaultSizes() Sizes { return Sizes{Seats: 3, Horizon: 6, Items: 6, Turns: 12} }

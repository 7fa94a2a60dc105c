package proofscheck

// Sizes bound the random instances of the belief-MDP claims (4–7).
type Sizes struct {
	// Seats is the largest number of conversation seats of an MDP instance
	// (2 or 3).
	Seats int
	// Horizon is the largest MDP horizon, steps.
	Horizon int
	// Items is the largest number of conversations of a one-step problem.
	Items int
	// Turns is the largest number of turns of a trace instance of the
	// corollaries.
	Turns int
}

// DefaultSizes are the sizes 'tailbound check' uses unless told otherwise.
// On this 2-core machine 200 instances take milliseconds per one-step or
// trace claim and 1–8 s per Theorem 2 scope (instances of 3 seats and 6
// steps dominate); the belief claims take about 0.1 s per instance.
func DefaultSizes() Sizes { return Sizes{Seats: 3, Horizon: 6, Items: 6, Turns: 12} }

package exact

import (
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
)

// Default returns the default instance with n seats (1 to 4): seat i turns
// at rate 1/(1+i/2) per second while alive, μ = 0.25/s, no births, steps of
// Δ = 0.2 s over a horizon of 15 steps (3 s) and at most 3 turns, B = 1,
// C = 6 tokens, ξ = 2 tokens, prompts of 1 or 3 tokens with equal chance,
// responses of 1 token, optional caching, no discount. The root is the
// decision right after seat 0's turn, with histories 5, 4, 3, 2 tokens,
// cached 0, 3, 2, 1 tokens and silences 0, 2, 4, 6 steps. The Paper world is
// used unless w says otherwise.
func Default(n int, w World) *Instance {
	in := &Instance{
		World: w, Served: 0, Mu: 0.25, Step: 0.2, Horizon: 15, MaxTurns: 3,
		Params:   instance.Params{Capacity: 6, BlockSize: 1, Xi: 2},
		Prompt:   birthdeath.Atoms{Values: []int64{1, 3}, Probs: []float64{0.5, 0.5}},
		Response: birthdeath.Atoms{Values: []int64{1}, Probs: []float64{1}},
	}
	hist := []int64{5, 4, 3, 2}
	cached := []int64{0, 3, 2, 1}
	for i := 0; i < n && i < maxSeats; i++ {
		in.Seats = append(in.Seats, Seat{Rate: 1 / (1 + float64(i)/2), History: hist[i], Cached: cached[i], Silence: 2 * i})
	}
	return in
}

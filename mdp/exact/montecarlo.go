package exact

import (
	"errors"
	"math"
	"math/rand/v2"
)

var errPrefix = errors.New("exact: this method needs an explicit root (no prefix)")

// Estimate is a Monte Carlo estimate of a policy's expected TEL, tokens.
type Estimate struct {
	Mean   float64 // sample mean over the replications
	StdErr float64 // standard error of the mean
	Reps   int
}

// Simulate estimates the expected TEL of decider d from the root of an
// instance without a prefix by sampling reps independent paths of the step
// process with the given seed. It shares only the hazards and the decider
// with Evaluate, so it checks the solver's averaging.
func Simulate(in *Instance, d Decider, reps int, seed uint64) (Estimate, error) {
	if err := in.Validate(); err != nil {
		return Estimate{}, err
	}
	if len(in.Prefix) > 0 {
		return Estimate{}, errPrefix
	}
	if reps < 2 {
		return Estimate{}, errors.New("exact: need at least 2 replications")
	}
	haz := in.hazards(in.World, in.maxSilence())
	r := rand.New(rand.NewPCG(seed, 0x6d6f6e7465636172)) // "montecar"
	gamma := in.discount()
	var sum, sum2 float64
	seats := make([]Seat, len(in.Seats))
	for rep := 0; rep < reps; rep++ {
		copy(seats, in.Seats)
		if in.Served >= 0 {
			apply(seats, d.Decide(in, seats, in.Served))
		}
		cost, disc, turns := 0.0, 1.0, 0
		for t := 0; t < in.Horizon && (in.MaxTurns == 0 || turns < in.MaxTurns); t++ {
			disc *= gamma
			u := r.Float64()
			who := -1
			for i, s := range seats {
				p := in.Birth * in.Step
				if s.History > 0 {
					p = haz[i][s.Silence]
				}
				if u < p {
					who = i
					break
				}
				u -= p
			}
			for j := range seats {
				if j != who && seats[j].History > 0 {
					seats[j].Silence++
				}
			}
			if who < 0 {
				continue
			}
			q, a := in.Prompt.Sample(r), in.Response.Sample(r)
			s := &seats[who]
			cost += disc * math.Max(float64(s.History+q-s.Cached)-in.Xi, 0)
			s.History += q + a
			s.Silence = 0
			turns++
			if in.MaxTurns == 0 || turns < in.MaxTurns {
				apply(seats, d.Decide(in, seats, who))
			}
		}
		sum += cost
		sum2 += cost * cost
	}
	n := float64(reps)
	mean := sum / n
	return Estimate{Mean: mean, StdErr: math.Sqrt(max(sum2/n-mean*mean, 0) / (n - 1)), Reps: reps}, nil
}

func apply(seats []Seat, y []int64) {
	for i := range seats {
		seats[i].Cached = y[i]
	}
}

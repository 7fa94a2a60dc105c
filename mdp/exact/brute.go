package exact

import "math"

// BruteForce returns the optimal expected TEL of an instance without a
// prefix by expectimax over the whole event tree: no state is merged, and
// at every turn every vector of amounts in the box [0, bound] is tried and
// kept if it fits the capacity. It shares only the hazards with Solve, and
// its cost grows exponentially with the horizon; it is for checks on the
// smallest instances.
func BruteForce(in *Instance) (float64, error) {
	if err := in.Validate(); err != nil {
		return 0, err
	}
	if len(in.Prefix) > 0 {
		return 0, errPrefix
	}
	b := &brute{in: in, haz: in.hazards(in.World, in.maxSilence())}
	seats := append([]Seat(nil), in.Seats...)
	if in.Served < 0 {
		return b.afterDecision(0, 0, seats), nil
	}
	return b.atTurn(0, 0, seats, in.Served), nil
}

type brute struct {
	in  *Instance
	haz [][]float64
}

func (b *brute) atTurn(t, k int, seats []Seat, served int) float64 {
	in := b.in
	n := len(seats)
	bound := make([]int64, n)
	for i, s := range seats {
		bound[i] = s.Cached
	}
	bound[served] = min(seats[served].History-seats[served].History%in.BlockSize, in.Capacity)
	best := math.Inf(1)
	y := make([]int64, n)
	var rec func(i int)
	rec = func(i int) {
		if i < n {
			for v := int64(0); v <= bound[i]; v += in.BlockSize {
				if in.Forced && i == served && v != bound[i] {
					continue
				}
				y[i] = v
				rec(i + 1)
			}
			return
		}
		var used int64
		for _, v := range y {
			used += v
		}
		if used > in.Capacity {
			return
		}
		after := append([]Seat(nil), seats...)
		for j := range after {
			after[j].Cached = y[j]
		}
		best = math.Min(best, b.afterDecision(t, k, after))
	}
	rec(0)
	return best
}

func (b *brute) afterDecision(t, k int, seats []Seat) float64 {
	in := b.in
	if t == in.Horizon || (in.MaxTurns > 0 && k == in.MaxTurns) {
		return 0
	}
	gamma := in.discount()
	total, quiet := 0.0, 1.0
	for i, s := range seats {
		p := in.Birth * in.Step
		if s.History > 0 {
			p = b.haz[i][s.Silence]
		}
		quiet -= p
		if p == 0 {
			continue
		}
		for a, q := range in.Prompt.Values {
			for c, r := range in.Response.Values {
				w := p * in.Prompt.Probs[a] * in.Response.Probs[c]
				cost := math.Max(float64(s.History)+float64(q)-float64(s.Cached)-in.Xi, 0)
				next := append([]Seat(nil), seats...)
				for j := range next {
					if next[j].History > 0 {
						next[j].Silence++
					}
				}
				next[i].History += q + r
				next[i].Silence = 0
				future := 0.0
				if in.MaxTurns == 0 || k+1 < in.MaxTurns {
					future = b.atTurn(t+1, k+1, next, i)
				}
				total += w * (cost + future)
			}
		}
	}
	if quiet > 1e-15 {
		next := append([]Seat(nil), seats...)
		for j := range next {
			if next[j].History > 0 {
				next[j].Silence++
			}
		}
		total += quiet * b.afterDecision(t+1, k, next)
	}
	return gamma * total
}

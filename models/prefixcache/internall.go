package prefixcache

import "github.com/tailbound/tailbound/models/blocktrace"

// InternAll numbers the blocks of a whole trace held in memory with one
// Interner and returns its requests as Reqs, Index set to their position
// (as a replay numbers them). Offline analyses (hindsight bounds) read the
// trace this way; replays stream it instead.
func InternAll(rs []blocktrace.Request) ([]Req, error) {
	in := NewInterner()
	out := make([]Req, len(rs))
	var arena []BlockID
	for i := range rs {
		r := rs[i]
		r.Index = i
		q, a, err := in.Intern(&r, arena)
		if err != nil {
			return nil, err
		}
		arena = a
		out[i] = q
	}
	return out, nil
}

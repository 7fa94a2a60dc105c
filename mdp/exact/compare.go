package exact

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/models/namelist"
)

// deciders are the policies Deciders builds, in order; qhat is T-LRU's Q̂.
func deciders(qhat float64) []Decider {
	return []Decider{LRU{}, TLRU{QHat: qhat}, ETLRU{Belief: Paper}, ETLRU{Belief: Bayes}}
}

// DeciderNames returns the names of the policies Deciders builds.
func DeciderNames() []string { return namelist.Names(deciders(0), Decider.Name) }

// Deciders returns the policies named in list (comma-separated, from
// DeciderNames; blank entries are skipped), T-LRU with Q̂ = qhat tokens.
func Deciders(list string, qhat float64) ([]Decider, error) {
	byName := map[string]Decider{}
	for _, d := range deciders(qhat) {
		byName[d.Name()] = d
	}
	var out []Decider
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" {
			d, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("unknown policy %q (want %s)", name, strings.Join(DeciderNames(), ", "))
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// Row is a policy's expected TEL against the optimum.
type Row struct {
	// Name is the policy's name ("optimum" for the optimum).
	Name string `json:"name"`
	// Value is the expected TEL, tokens; Gap its excess over the
	// optimum's, tokens.
	Value float64 `json:"expected_tel_tokens"`
	Gap   float64 `json:"gap_tokens"`
	// Decision is the root decision (tokens per seat), nil between turns.
	Decision []int64 `json:"first_decision_tokens"`
	// States is the number of states evaluated.
	States int `json:"states"`
}

// Compare solves in and evaluates each of ds on it: the optimum's row
// first, then one per policy in order.
func Compare(in *Instance, ds []Decider) ([]Row, error) {
	opt, err := Solve(in)
	if err != nil {
		return nil, err
	}
	rows := []Row{{"optimum", opt.Value, 0, opt.Decision, opt.States}}
	for _, d := range ds {
		r, err := Evaluate(in, d)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{d.Name(), r.Value, r.Value - opt.Value, r.Decision, r.States})
	}
	return rows, nil
}

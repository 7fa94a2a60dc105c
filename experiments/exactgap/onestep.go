package exactgap

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/report"
	"github.com/tailbound/tailbound/mdp/etlru"
)

// OneStepRow is one way of solving a one-step ET-LRU problem.
type OneStepRow struct {
	// Name is "etlru" (the greedy of Lemma 1) or "optimum" (the exact
	// dynamic program).
	Name string `json:"name"`
	// Objective is Σ_i λ_i·E[(H_i + Q − y_i − ξ)⁺] of the decision,
	// tokens per second.
	Objective float64 `json:"objective_tokens_per_s"`
	// Gap is Objective minus the optimum's, tokens per second.
	Gap float64 `json:"gap_tokens_per_s"`
	// Kept are the tokens y_i kept per item.
	Kept []int64 `json:"kept_tokens"`
}

// OneStep is 'tailbound mdp onestep': it solves the one-step ET-LRU
// problem that o states (etlru.SolveOneStep) and returns the JSON document
// and the table the command prints, ET-LRU's greedy and the exact optimum;
// errors name the flags at fault.
func OneStep(o etlru.OneStepOptions) (any, []report.Table, error) {
	s, err := etlru.SolveOneStep(o)
	if err != nil {
		return nil, nil, err
	}
	rows := []OneStepRow{
		{Name: "etlru", Objective: s.GreedyObjective, Gap: s.GreedyObjective - s.OptimumObjective, Kept: s.Greedy},
		{Name: "optimum", Objective: s.OptimumObjective, Kept: s.Optimum},
	}
	t := report.Table{
		Title: fmt.Sprintf("one-step ET-LRU problem: %d items, C=%d tokens, B=%d tokens, ξ=%g tokens, prompt %s; objective Σ λ·E[(H + Q − y − ξ)⁺]",
			len(s.Problem.Items), o.Capacity, o.BlockSize, o.Xi, o.Prompt),
		Header: []string{"policy", "objective (tokens/s)", "gap to optimum (tokens/s)", "kept (tokens per item)"},
	}
	for _, r := range rows {
		t.Add(report.CellText(r.Name), report.CellF(r.Objective, 9), report.CellF(r.Gap, 9), report.CellText(fmt.Sprint(r.Kept)))
	}
	doc := map[string]any{"units": "objective Σ_i λ_i·E[(H_i + Q − y_i − ξ)⁺] in tokens per second (rates per s times tokens; times a step of Δ s it is the step's expected TEL, tokens); kept in tokens per item",
		"instance": map[string]any{"items": o.Items, "capacity_tokens": o.Capacity, "block_size_tokens": o.BlockSize,
			"xi_tokens": o.Xi, "prompt": o.Prompt},
		"policies": rows}
	return doc, []report.Table{t}, nil
}

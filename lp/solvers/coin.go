//go:build coin

package solvers

import (
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/coin"
)

// newCLP returns COIN-OR CLP: this build has it.
func newCLP() (lp.Solver, error) { return lp.BackendSolver{Backend: coin.CLP{}}, nil }

// newCBC returns COIN-OR CBC: this build has it.
func newCBC() (lp.Solver, error) { return lp.BackendSolver{Backend: coin.CBC{}}, nil }

//go:build !coin

package solvers

import (
	"errors"

	"github.com/tailbound/tailbound/lp"
)

// errNoCoin says what a build without the COIN-OR backends lacks.
var errNoCoin = errors.New("needs a build with -tags coin (and coinor-libclp-dev, coinor-libcbc-dev)")

// newCLP refuses: this build has no COIN-OR backends.
func newCLP() (lp.Solver, error) { return nil, errNoCoin }

// newCBC refuses: this build has no COIN-OR backends.
func newCBC() (lp.Solver, error) { return nil, errNoCoin }

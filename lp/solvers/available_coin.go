//go:build coin

package solvers

import (
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/coin"
)

// coinBuilt reports whether this build has the COIN-OR backends.
const coinBuilt = true

// available returns the LP/MIP backends of a build with the "coin" tag:
// COIN-OR CLP and CBC, then gonum.
func available() []lp.Backend { return []lp.Backend{coin.CLP{}, coin.CBC{}, lp.Gonum{}} }

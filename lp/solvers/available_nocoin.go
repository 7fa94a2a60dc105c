//go:build !coin

package solvers

import "github.com/tailbound/tailbound/lp"

// coinBuilt reports whether this build has the COIN-OR backends.
const coinBuilt = false

// available returns the LP/MIP backends of a build without the "coin" tag:
// gonum only.
func available() []lp.Backend { return []lp.Backend{lp.Gonum{}} }

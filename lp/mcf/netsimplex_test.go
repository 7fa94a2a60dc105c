package mcf

import "testing"

// TestNetworkSimplexAgainstBrute: on small random networks (negative
// cycles, infeasible supplies) the network simplex finds the enumerated
// optimum, or reports ErrInfeasible where no flow exists.
func TestNetworkSimplexAgainstBrute(t *testing.T) {
	checkAgainstBrute(t, NetworkSimplex, 21, 2000, false)
}

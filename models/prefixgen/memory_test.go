package prefixgen

import (
	"context"
	"io"
	"math"
	"testing"
)

// TestBoundedSessionTable generates 10^6 requests of the cluster preset
// and checks that the session table stays within what the model implies,
// not growing with the trace. Sessions arrive as a Poisson process of rate
// at most λ(1 + A) and stay in the table for their span D (first to last
// turn), so the table is an M/G/∞ occupancy: Poisson with mean at most
// ν = λ(1 + A)·E[D], E[D] = Σ_c w_c (E[turns_c] − 1)·E[gap_c] with each
// gap's mean at its largest over the day. The peak over the run is below
// ν + 8√ν + 8 with overwhelming probability (a Poisson's tail past 8 sd is
// below 10^-12 per look, and the run makes far fewer than 10^9 looks at
// independent occupancies). Each live chain is at most the context limit.
func TestBoundedSessionTable(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 requests")
	}
	m := Cluster()
	var sumW, ed float64
	for _, c := range m.Categories {
		sumW += c.Weight
	}
	for _, c := range m.Categories {
		gap := c.Gap.OffsetS + c.Gap.MeanS*(1+math.Abs(c.Gap.GapShift))
		ed += c.Weight / sumW * (c.MeanTurns() - 1) * gap
	}
	nu := m.SessionsPerS * (1 + m.Diurnal.Amplitude) * ed
	bound := nu + 8*math.Sqrt(nu) + 8
	st, err := Write(context.Background(), GenOptions{Model: m, Seed: 1, Requests: 1_000_000}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != 1_000_000 {
		t.Fatalf("%d requests, want 10^6", st.Requests)
	}
	if float64(st.PeakLive) > bound {
		t.Errorf("peak session table %d > bound %.0f (ν = %.0f)", st.PeakLive, bound, nu)
	}
	if maxChain := 131072 / BlockTokens; st.PeakChainBlocks > maxChain {
		t.Errorf("a live chain of %d blocks passes the context limit's %d", st.PeakChainBlocks, maxChain)
	}
	t.Logf("10^6 requests, %d sessions: peak table %d sessions (bound %.0f, ν %.0f), longest chain %d blocks",
		st.Sessions, st.PeakLive, bound, nu, st.PeakChainBlocks)
}

package proofscheck

import (
	"testing"

	"github.com/tailbound/tailbound/proofs-check/claim"
)

// BenchmarkClaims times each default claim on 20 instances (one goroutine
// per claim, so the figure is one core's), for comparing the claims'
// costs with each other in one run.
func BenchmarkClaims(b *testing.B) {
	for _, c := range All() {
		b.Run(c.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := claim.Run([]claim.Claim{c}, 20, uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

//go:build coin

package coin

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tailbound/tailbound/lp"
)

// TestConcurrent solves the same problems from two goroutines at once, each
// with both backends, and checks every answer against a sequential solve
// of the same problem. Without the package's CBC mutex the MIPs fail here
// (CBC returns status -1, branch and bound never started, as the two
// CbcMain1 calls share their argument cursor). It also checks that the Go
// runtime's SIGINT handler survives: CLP's default initial solve swaps a
// handler of its own in and out, which interleaved solves would leave
// installed (they did in 2 of 3 runs before the binding switched it off).
func TestConcurrent(t *testing.T) {
	probs := []*lp.Problem{intervalLP(2000, 30, 1), intervalLP(2000, 30, 2)}
	mips := []*lp.Problem{mipCases()[0].p, mipCases()[1].p, mipCases()[3].p,
		marketSplit(2, 14, 0), marketSplit(2, 14, 1), marketSplit(2, 14, 2)}
	type job struct {
		b lp.Backend
		p *lp.Problem
	}
	var jobs []job
	for _, p := range probs {
		jobs = append(jobs, job{CLP{}, p}, job{CBC{}, p})
	}
	for _, p := range mips {
		jobs = append(jobs, job{CBC{}, p})
	}
	want := make([]lp.Solution, len(jobs))
	for i, j := range jobs {
		sol, err := j.b.Solve(context.Background(), j.p, lp.Options{})
		if err != nil || sol.Status != lp.Optimal {
			t.Fatalf("job %d: sequential solve %v, %v", i, sol.Status, err)
		}
		want[i] = sol
	}
	handler := sigintHandler()

	const goroutines, rounds = 2, 3
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*rounds*len(jobs))
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				for k := range jobs {
					i := (k + g) % len(jobs) // the goroutines are out of step
					sol, err := jobs[i].b.Solve(context.Background(), jobs[i].p, lp.Options{})
					switch {
					case err != nil:
						errs <- fmt.Errorf("job %d: %w", i, err)
					case sol.Status != lp.Optimal:
						errs <- fmt.Errorf("job %d: status %v (%s)", i, sol.Status, sol.Detail)
					case sol.Obj != want[i].Obj:
						// Same problem, same deterministic algorithm:
						// the answer must be bit-identical.
						errs <- fmt.Errorf("job %d: objective %v concurrently, %v alone", i, sol.Obj, want[i].Obj)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := sigintHandler(); got != handler {
		t.Errorf("SIGINT handler changed from %#x to %#x", handler, got)
	}
}

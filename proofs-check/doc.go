// Package proofscheck states every claim of the tail-latency caching
// literature that SPEC §6 lists as an executable check on the machinery
// of package claim: each claim draws random instances from a seed, checks
// the claim on each with solvers independent of the code under test (an
// exhaustive search, a second solver, an exact dynamic program, the exact
// belief-MDP solver, a second policy, Monte Carlo, a live measurement),
// and reports how many passed and the smallest counterexample it could
// shrink to. A failing claim is a result, not a crash.
//
// One file holds one claim family and names its source (paper, theorem or
// section, seed file in ../shared/seeds/):
//
//	theorem1.go     1  Theorem 1, Tail-Optimized Belady is hindsight-optimal
//	formulation.go  2  the three integer programs have the hindsight optimum
//	relaxation.go   3  their LP relaxations have no integrality gap
//	lemma1.go       4  Lemma 1, the greedy solves the one-step ET-LRU problem
//	corollary.go    5  the corollaries of Theorem 2 (LRU, T-LRU, unit pages)
//	theorem2.go     6  Theorem 2, ET-LRU is optimal in the belief MDP
//	belief.go       7  the belief against the sampled fraction alive
//	figure1.go      8  the tail-latency paper's Figure 1
//	roofline.go     9  the roofline optimum r0 against the measured optimum
//	flow.go        10  the min-cost-flow solver against exhaustive search
//
// claims.go registers each family with one line; instance.go, optimum.go
// and exhaustive.go hold what several families share (the small trace
// instance, the solver calls, the exhaustive optimum); check.go is the
// check command's settings and run (CheckOptions, Check).
//
// The folder is proofs-check/; the Go package is proofscheck.
package proofscheck

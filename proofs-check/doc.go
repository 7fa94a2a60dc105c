// Package proofscheck states the claims of the tail-latency caching
// literature (SPEC §6) as executable checks on the machinery of package
// claim: each claim draws random instances from a seed, checks the claim on
// each with solvers independent of the code under test, and reports how
// many passed and the smallest counterexample it could shrink to. A failing
// claim is a result, not a crash.
//
// The folder is proofs-check/; the Go package is proofscheck.
package proofscheck

// Package etlru is ET-LRU, the expected-tail-optimized LRU of the
// tail-latency paper (Definition 1): after each turn it keeps the cached
// amounts Y that minimize the expected TEL of the next turn,
//
//	Σ_i λ_i · E[(H_i + Q − Y_i − ξ)⁺]
//	s.t. Y_served ≤ its new history, Y_i ≤ X_i for the others, Σ Y_i ≤ C,
//
// with Y in whole blocks of B tokens, λ_i the expected turn rate of
// conversation i under a belief (package mdp/belief) and Q the next prompt
// length.
//
// Each term is convex and non-increasing in Y_i, so block k of
// conversation i has the marginal value
//
//	v_i(k) = λ_i · (E[(H_i + Q − ξ − (k−1)B)⁺] − E[(H_i + Q − ξ − kB)⁺]),
//
// non-increasing in k, and the problem is a separable concave resource
// allocation: taking blocks in decreasing marginal value is optimal
// (Lemma 1). Greedy does it from the top down with a heap — start from the
// upper bounds and evict the block of least value until the total fits —
// and Exact solves the same problem by dynamic programming over
// conversations × capacity blocks, for checks.
//
// As a replay policy (New), ET-LRU keeps the served conversation whole and
// trims only when over capacity. Under the paper's belief every
// conversation decays at the same rate μ, so the order of their values
// moves only through the prompt distribution, and then only upwards from
// stored bounds: a persistent heap, touched for the conversation served and
// the ones evicted from, finds Greedy's blocks (incremental.go: proof,
// and why the choices are Greedy's bit for bit); O(log n) per turn that
// fits and about O(log n) per run of blocks evicted from one conversation.
// Under the Bayes belief the order of the values changes with time, but
// each conversation's log rate decays no faster than a slope known when it
// was last valued (belief.Bayes.LogRateSlope): heaps of stored bounds, one
// per slope class μ·2^{k/4}, find Greedy's blocks the same way, valuing
// only the conversations whose bounds come within rounding of the least
// value (bayes_incremental.go: proof). Options.Rescore instead re-scores
// every cached conversation on each turn that overflows (O(n) for n
// cached, each an O(log L) prompt-tail lookup, and a heap, O(n + e·log n)
// for e evicted blocks), under either belief: the tests' oracle.
package etlru

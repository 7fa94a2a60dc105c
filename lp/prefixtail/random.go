package prefixtail

import "math/rand/v2"

// RandomChains draws n requests for small random instances (the tests'
// and proofs-check's): each request's chain is the root-to-node path of a
// random forest of at most nodes blocks — it extends a random node, or
// starts a new root, by one to three blocks while blocks remain, or reuses
// the path to a random node — and its input is (len−1)·B+1 … len·B tokens
// (⌈input/B⌉ = the chain's length, as the block-trace importers require).
// With longer, half the inputs also run up to 4B tokens past the chain.
// Chains hold block numbers as hashes, parents before children.
func RandomChains(r *rand.Rand, n, nodes int, block int64, longer bool) (chains [][]int64, inputs []int64) {
	parent := []int{-1, -1}
	for range n {
		v := r.IntN(len(parent))
		if len(parent) < nodes && r.IntN(2) == 0 {
			if r.IntN(5) == 0 {
				parent = append(parent, -1)
				v = len(parent) - 1
			}
			for k := 1 + r.IntN(3); k > 0 && len(parent) < nodes; k-- {
				parent = append(parent, v)
				v = len(parent) - 1
			}
		}
		var path []int64
		for u := v; u >= 0; u = parent[u] {
			path = append([]int64{int64(u)}, path...)
		}
		d := int64(len(path)-1)*block + 1 + r.Int64N(block)
		if longer && r.IntN(2) == 0 {
			d += r.Int64N(4 * block) // more input than the chain's blocks
		}
		chains = append(chains, path)
		inputs = append(inputs, d)
	}
	return chains, inputs
}

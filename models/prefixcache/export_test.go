package prefixcache

// GeneralOnly makes c serve every request through the general path, for
// tests that compare it with the single-block fast path (serveSingle).
func GeneralOnly(c *Cache) { c.general = true }

// EngineHolds reports whether the engine p (vllm, vllm-tlru) holds block
// id's hash now.
func EngineHolds(p Policy, id BlockID) bool {
	switch e := p.(type) {
	case *vllm:
		return e.lookup(id) != 0
	case *vllmV0:
		return e.cachedBlock(id) >= 0
	}
	return false
}

// EngineCopies returns how many blocks of the vllm engine p hold hash id.
func EngineCopies(p Policy, id BlockID) int {
	e := p.(*vllm)
	n := 0
	for b := e.lookup(id); b != 0; b = e.blocks[b].dup {
		n++
	}
	return n
}

// EngineQueue returns the hashes along vllm's free queue, head first (-1 for
// a block without one).
func EngineQueue(p Policy) []BlockID {
	e := p.(*vllm)
	var out []BlockID
	for b := e.blocks[0].next; b != 0; b = e.blocks[b].next {
		out = append(out, e.blocks[b].hash)
	}
	return out
}

// EnginePhantoms returns vllm-tlru's count of hit blocks past the cached
// prefix.
func EnginePhantoms(p Policy) int64 { return p.(*vllmV0).Phantoms() }

// RadixTokens returns the tokens in sglang's tree.
func RadixTokens(p Policy) int64 { return p.(*sglang).size }

// RadixCached returns how many of the first end tokens of chain bs
// sglang's tree holds.
func RadixCached(p Policy, bs []BlockID, end int64) int64 { return p.(*sglang).cachedTokens(bs, end) }

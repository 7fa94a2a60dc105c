package prefixcache

import (
	"github.com/tailbound/tailbound/models/namelist"
)

// Entry is a registered block-level policy.
type Entry struct {
	// Name is the policy's command-line name.
	Name string
	// New builds the policy.
	New Factory
	// Doc is a one-line description.
	Doc string
}

// All returns every registered policy, in presentation order. A new policy
// needs one line here.
func All() []Entry {
	return []Entry{
		{"lru", NewLRU, "least recently used evictable block first"},
		{"fifo", NewFIFO, "earliest admitted evictable block first"},
		{"lfu", NewLFU, "fewest uses since admission first (LRU among equals)"},
		{"s3fifo", NewS3FIFO, "S3-FIFO: small, main and ghost FIFOs (libCacheSim's parameters)"},
		{"gdsf", NewGDSF, "Greedy-Dual-Size-Frequency: lowest L + frequency first"},
		{"aging-lfu", NewAgingLFU, "Aging-LFU (prefix-sharing study): lowest uses − age first"},
		{"workload-aware", NewWorkloadAware, "workload study's policy: lowest fitted reuse probability, deepest first"},
		{"tlru", NewTLRU, "prefix T-LRU: blocks no future request needs below ξ first, then LRU"},
		{"vllm", NewVLLM, "vLLM v1's block pool: one free queue, requests' blocks freed last block first"},
		{"vllm-tlru", NewVLLMTLRU, "the paper's engine T-LRU (vLLM v0 fork): LRU evictor, a request's last ⌊N/B⌋ blocks not refreshed"},
		{"sglang", NewSGLang, "SGLang's radix cache: LRU over unlocked leaf nodes, token pages"},
	}
}

// Names returns the registered names, in presentation order.
func Names() []string { return namelist.Names(All(), entryName) }

// Parse resolves a comma-separated list of policy names; an unknown name is
// an error that lists the known ones.
func Parse(list string) ([]Entry, error) {
	return namelist.Select(list, All(), entryName, "block policy")
}

func entryName(e Entry) string { return e.Name }

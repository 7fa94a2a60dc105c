package prefixcache

import (
	"fmt"
	"strings"
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
	}
}

// Names returns the registered names, in presentation order.
func Names() []string {
	var n []string
	for _, e := range All() {
		n = append(n, e.Name)
	}
	return n
}

// Parse resolves a comma-separated list of policy names; an unknown name is
// an error that lists the known ones.
func Parse(list string) ([]Entry, error) {
	all := All()
	var out []Entry
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		found := false
		for _, e := range all {
			if e.Name == name {
				out = append(out, e)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown block policy %q (known: %s)", name, strings.Join(Names(), ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no block policy named (known: %s)", strings.Join(Names(), ", "))
	}
	return out, nil
}

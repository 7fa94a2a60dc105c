// Package policies is the registry of conversation-level policies: the one
// place that maps a policy name to its constructor. Every command (simulate,
// gap, check, tables) finds policies here, so a new policy needs one line in
// All and nothing in the engine.
package policies

import (
	"fmt"
	"strings"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/mdp/etlru"
	"github.com/tailbound/tailbound/models/execpolicy"
	"github.com/tailbound/tailbound/models/namelist"
	"github.com/tailbound/tailbound/models/policy"
)

// Entry is a registered policy.
type Entry struct {
	// Name is the policy's command-line name.
	Name string
	// New builds the policy.
	New policy.Factory
	// Hindsight is true when the policy reads the future (Config.Future),
	// so the trace must be read whole before replay.
	Hindsight bool
	// Doc is a one-line description.
	Doc string
}

// All returns every registered policy, in presentation order.
func All() []Entry {
	return []Entry{
		{"lru", policy.NewLRU, false, "least recently used conversation evicted first"},
		{"fifo", policy.NewFIFO, false, "conversations evicted in the order they entered the cache"},
		{"lfu", policy.NewLFU, false, "fewest turns evicted first (LRU among equals)"},
		{"threshold-lru", policy.NewThresholdLRU, false, "LRU caching only histories ≥ --threshold tokens"},
		{"tlru", policy.NewTLRU, false, "T-LRU: blocks beyond the TEL-safe budget first, then LRU"},
		{"end-aware-tlru", belady.NewEndAwareTLRU, true, "T-LRU knowing whether each conversation returns"},
		{"length-aware-tlru", belady.NewLengthAwareTLRU, true, "end-aware T-LRU knowing the next prompt length"},
		{"to-belady", belady.NewTailOptimized, true, "Tail-Optimized Belady (hindsight): budget, then furthest next turn"},
		{"belady", belady.NewClassic, true, "classic Belady (hindsight): furthest next turn"},
		{"etlru", etlru.New, false, "ET-LRU: evicts the blocks of least expected next-turn TEL (--policy-opt belief=paper|bayes, mu, rates, prompt)"},
	}
}

// Names returns the registered names, in presentation order.
func Names() []string { return namelist.Names(All(), entryName) }

// ExecPrefix starts a list item naming an external policy: "exec:CMD" runs
// CMD (which cannot contain a comma) as a subprocess (models/execpolicy).
const ExecPrefix = "exec:"

// Parse resolves a comma-separated list of policy names; an unknown name is
// an error that lists the known ones. An item "exec:CMD" is the external
// policy run by CMD, with the default time limit.
func Parse(list string) ([]Entry, error) { return ParseWith(list, execpolicy.Options{}) }

// ParseWith is Parse with the settings of exec: policies.
func ParseWith(list string, ex execpolicy.Options) ([]Entry, error) {
	if !strings.Contains(list, ExecPrefix) {
		return namelist.Select(list, All(), entryName, "policy")
	}
	var out []Entry
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if cmd, ok := strings.CutPrefix(item, ExecPrefix); ok {
			if strings.TrimSpace(cmd) == "" {
				return nil, fmt.Errorf("policy %q: no command after %s", item, ExecPrefix)
			}
			out = append(out, Entry{Name: item, New: execpolicy.New(cmd, ex), Doc: "external policy run by " + cmd})
			continue
		}
		e, err := namelist.Select(item, All(), entryName, "policy")
		if err != nil {
			return nil, err
		}
		out = append(out, e...)
	}
	return out, nil
}

func entryName(e Entry) string { return e.Name }

// Package claim is the machinery of executable claims: a claim draws random
// instances from a seed, checks each with solvers independent of the code
// under test, and reports how many passed and the smallest counterexample
// it could shrink to. A failing claim is a result, not a crash.
//
// The claims themselves live in proofs-check (package proofscheck), one
// file per claim family, registered in the collection that 'tailbound
// check' runs.
package claim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"sync"
)

// Instance is one random instance of a claim.
type Instance interface {
	// Size orders instances for shrinking: smaller is simpler.
	Size() int
	// Shrink returns simpler variants to try when this one fails.
	Shrink() []Instance
	// Export returns the instance as a JSON-ready value that can be run
	// again (a trace plus parameters).
	Export() any
}

// Claim is a checkable statement.
type Claim struct {
	// Name is the command-line name, e.g. "theorem1".
	Name string
	// Statement says what is claimed and where it comes from.
	Statement string
	// Generate draws an instance.
	Generate func(r *rand.Rand) Instance
	// Check returns whether the claim holds on inst, with a detail that
	// explains a failure (values on both sides).
	Check func(inst Instance) (ok bool, detail string, err error)
	// Fixed is the number of instances the claim has (a single worked
	// example, or the settings of an expensive statistical check): it runs
	// min(Fixed, asked). 0 means as many as asked.
	Fixed int
}

// Report is the outcome of checking one claim.
type Report struct {
	Name      string `json:"name"`
	Statement string `json:"statement"`
	Instances int    `json:"instances"`
	Passed    int    `json:"passed"`
	Failed    int    `json:"failed"`
	// Counterexample is the smallest failing instance after shrinking,
	// nil when the claim held on every instance.
	Counterexample *Counterexample `json:"counterexample"`
}

// Counterexample is a failing instance and why it fails.
type Counterexample struct {
	Instance any    `json:"instance"`
	Detail   string `json:"detail"`
	Size     int    `json:"size"`
	// Command is a shell command line that reproduces the counterexample
	// with tailbound itself (the trace inline), when the instance can say
	// one (see Runnable).
	Command string `json:"command,omitempty"`
}

// Runnable is an Instance that can say how to reproduce it from the
// command line: a trace piped into a tailbound command, or the flags of
// 'tailbound mdp solve'.
type Runnable interface {
	Command() string
}

// newCounterexample exports inst with its detail and, if it has one, its
// command line.
func newCounterexample(inst Instance, detail string) *Counterexample {
	ce := &Counterexample{Instance: inst.Export(), Detail: detail, Size: inst.Size()}
	if r, ok := inst.(Runnable); ok {
		ce.Command = r.Command()
	}
	return ce
}

// Run checks every claim on instances random instances each, drawn from
// seed. Claims run in parallel on up to two goroutines; each claim's
// instances come from its own stream seeded by (seed, claim name) (see Stream), so the
// result does not depend on scheduling.
func Run(claims []Claim, instances int, seed uint64) ([]Report, error) {
	reports := make([]Report, len(claims))
	errs := make([]error, len(claims))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				reports[i], errs[i] = runClaim(claims[i], instances, Stream(seed, claims[i].Name))
			}
		}()
	}
	for i := range claims {
		work <- i
	}
	close(work)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", claims[i].Name, err)
		}
	}
	return reports, nil
}

// Stream returns the random stream of the claim named name under seed: a
// PCG keyed by the seed and the FNV-1a hash of the name, so a claim draws
// the same instances whichever other claims run with it and in whatever
// order.
func Stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

func runClaim(c Claim, instances int, r *rand.Rand) (Report, error) {
	rep := Report{Name: c.Name, Statement: c.Statement}
	n := instances
	if c.Fixed > 0 && c.Fixed < n {
		n = c.Fixed
	}
	var worst Instance
	var worstDetail string
	for i := 0; i < n; i++ {
		inst := c.Generate(r)
		ok, detail, err := c.Check(inst)
		if err != nil {
			return rep, err
		}
		rep.Instances++
		if ok {
			rep.Passed++
			continue
		}
		rep.Failed++
		if worst == nil || inst.Size() < worst.Size() {
			worst, worstDetail = inst, detail
		}
	}
	if worst != nil {
		small, detail, err := Shrink(c, worst, worstDetail)
		if err != nil {
			return rep, err
		}
		rep.Counterexample = newCounterexample(small, detail)
	}
	return rep, nil
}

// Once draws one instance of c from r and checks it; on failure the
// instance is shrunk to the smallest failing variant.
func Once(c Claim, r *rand.Rand) (passed bool, counterexample *Counterexample, err error) {
	inst := c.Generate(r)
	ok, detail, err := c.Check(inst)
	if err != nil || ok {
		return ok, nil, err
	}
	small, detail, err := Shrink(c, inst, detail)
	if err != nil {
		return false, nil, err
	}
	return false, newCounterexample(small, detail), nil
}

// Shrink greedily replaces a failing instance by a smaller failing variant
// until none of its variants fails (at most 10000 steps).
func Shrink(c Claim, inst Instance, detail string) (Instance, string, error) {
	for steps := 0; steps < 10000; steps++ {
		cands := inst.Shrink()
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Size() < cands[j].Size() })
		improved := false
		for _, s := range cands {
			if s.Size() >= inst.Size() {
				continue
			}
			ok, d, err := c.Check(s)
			if err != nil {
				return nil, "", err
			}
			if !ok {
				inst, detail, improved = s, d, true
				break
			}
		}
		if !improved {
			break
		}
	}
	return inst, detail, nil
}

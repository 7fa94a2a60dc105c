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
	// Exhaustive, when set, is a finite set of small instances checked in
	// full before the random ones (when Options.Exhaustive asks for it), so
	// that a counterexample that small is found whatever the seed.
	Exhaustive *Enumeration
}

// Enumeration is a finite set of instances, every one up to a stated
// size.
type Enumeration struct {
	// Bound states the set, e.g. "1–4 turns, ≤ 2 conversations, …"; the
	// report prints it as "exhaustive up to".
	Bound string
	// Each calls yield on every instance in a fixed order until yield
	// returns false.
	Each func(yield func(Instance) bool)
}

// Report is the outcome of checking one claim.
type Report struct {
	Name      string `json:"name"`
	Statement string `json:"statement"`
	// Instances is the number of instances checked: Exhaustive + Random.
	Instances int `json:"instances"`
	// Exhaustive is the number of instances enumerated in full, every one
	// within ExhaustiveBound (0 and "" when the claim has no enumeration
	// or it was not asked for).
	Exhaustive      int    `json:"exhaustive"`
	ExhaustiveBound string `json:"exhaustive_bound"`
	// ExhaustiveFailed is how many of the Exhaustive instances failed.
	ExhaustiveFailed int `json:"exhaustive_failed"`
	// Random is the number of random instances drawn from the seed.
	Random int `json:"random"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
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
// seed, and no enumeration: RunOptions with Options{Instances: instances,
// Seed: seed}.
func Run(claims []Claim, instances int, seed uint64) ([]Report, error) {
	return RunOptions(claims, Options{Instances: instances, Seed: seed})
}

// Options say which instances RunOptions checks.
type Options struct {
	// Instances is the number of random instances per claim.
	Instances int
	// Seed seeds the random instances.
	Seed uint64
	// Exhaustive checks each claim's Exhaustive enumeration, in full,
	// before its random instances.
	Exhaustive bool
}

// RunOptions checks every claim: its enumeration first when o.Exhaustive
// and it has one, then o.Instances random instances drawn from o.Seed.
// Claims run in parallel on up to two goroutines; each claim's instances
// come from its own stream seeded by (seed, claim name) (see Stream), so
// the result does not depend on scheduling.
func RunOptions(claims []Claim, o Options) ([]Report, error) {
	instances, seed := o.Instances, o.Seed
	reports := make([]Report, len(claims))
	errs := make([]error, len(claims))
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				reports[i], errs[i] = runClaim(claims[i], instances, o.Exhaustive, Stream(seed, claims[i].Name))
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

func runClaim(c Claim, instances int, exhaustive bool, r *rand.Rand) (Report, error) {
	rep := Report{Name: c.Name, Statement: c.Statement}
	n := instances
	if c.Fixed > 0 && c.Fixed < n {
		n = c.Fixed
	}
	var worst Instance
	var worstDetail string
	check := func(inst Instance) (failed bool, err error) {
		ok, detail, err := c.Check(inst)
		if err != nil {
			return false, err
		}
		rep.Instances++
		if ok {
			rep.Passed++
			return false, nil
		}
		rep.Failed++
		if worst == nil || inst.Size() < worst.Size() {
			worst, worstDetail = inst, detail
		}
		return true, nil
	}
	if exhaustive && c.Exhaustive != nil {
		rep.ExhaustiveBound = c.Exhaustive.Bound
		var err error
		c.Exhaustive.Each(func(inst Instance) bool {
			var failed bool
			failed, err = check(inst)
			rep.Exhaustive++
			if failed {
				rep.ExhaustiveFailed++
			}
			return err == nil
		})
		if err != nil {
			return rep, err
		}
	}
	for i := 0; i < n; i++ {
		if _, err := check(c.Generate(r)); err != nil {
			return rep, err
		}
		rep.Random++
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

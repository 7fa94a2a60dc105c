package etlru

import (
	"testing"

	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/cache"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/policy"
)

// BenchmarkPolicy replays the embedded birth–death workload (one hour,
// ≈36000 turns) under ET-LRU with each belief at the simulate command's
// default cache (131072 tokens, B = 16, ξ = 1900 tokens) and reports
// turns per second.
func BenchmarkPolicy(b *testing.B) {
	tr, err := birthdeath.Trace(birthdeath.Default(), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, opts := range []map[string]string{{"belief": "paper"}, {"belief": "bayes"}, {"belief": "bayes", "gamma": "2:0.03"}} {
		name := opts["belief"]
		if opts["gamma"] != "" {
			name += "-gamma"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := New(policy.Config{Params: instance.Params{Capacity: 131072, BlockSize: 16, Xi: 1900}, Options: opts})
				if err != nil {
					b.Fatal(err)
				}
				s, _ := cache.New(instance.Params{Capacity: 131072, BlockSize: 16})
				for _, t := range tr.Turns {
					s.Begin(t.Conv, t.Prompt, t.Response)
					if err := p.Update(s, t); err != nil {
						b.Fatal(err)
					}
					if err := s.End(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(tr.Turns)*b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

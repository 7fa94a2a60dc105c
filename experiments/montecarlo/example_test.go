package montecarlo_test

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/montecarlo"
	"github.com/tailbound/tailbound/models/birthdeath"
)

// ET-LRU as the Monte Carlo study builds it: told the model's death rate
// and rate classes (per second), with the belief named in the policy.
func ExampleModelOptions() {
	p := birthdeath.Default()
	fmt.Println(montecarlo.ModelOptions(p)["rates"])
	entries, _ := montecarlo.Policies("lru,etlru-bayes", p, nil)
	fmt.Println(entries[0].Name, entries[1].Name)
	// Output:
	// 0.05:1,0.016666666666666666:1
	// lru etlru-bayes
}

package tier_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/tier"
)

func ExampleResolve() {
	over, _ := tier.ParseOverrides([]string{"nvme=7"})
	ts, _ := tier.Resolve([]string{"nvme", "hdd"}, over)
	for _, t := range ts {
		fmt.Printf("%s: %.0f ms per GB\n", t.Name, 1e3*t.Seconds(1e9))
	}
	// Output:
	// nvme: 143 ms per GB
	// hdd: 5000 ms per GB
}

package birthdeath_test

import (
	"bytes"
	"fmt"

	"github.com/tailbound/tailbound/models/birthdeath"
)

// A deaths file is one JSON object a line; ReadDeaths reads it back.
func ExampleWriteDeaths() {
	var buf bytes.Buffer
	ds := []birthdeath.Death{{Conv: "c0", Birth: 0, Death: 95.5, Rate: 0.02, Turns: 3}}
	if err := birthdeath.WriteDeaths(&buf, ds); err != nil {
		fmt.Println(err)
	}
	fmt.Print(buf.String())
	back, err := birthdeath.ReadDeaths(&buf, "deaths.jsonl")
	fmt.Println(back[0].Turns, err)
	// Output:
	// {"conv":"c0","birth_s":0,"death_s":95.5,"rate_per_s":0.02,"turns":3}
	// 3 <nil>
}

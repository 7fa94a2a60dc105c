package kvsize_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/kvsize"
)

func ExampleConfig_BytesPerToken() {
	c, _ := kvsize.Preset("llama-3-8b")
	fmt.Printf("%.0f bytes/token, %.0f MiB for 4096 tokens\n", c.BytesPerToken(), c.Bytes(4096)/(1<<20))
	// Output: 131072 bytes/token, 512 MiB for 4096 tokens
}

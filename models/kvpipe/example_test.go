package kvpipe_test

import (
	"fmt"

	"github.com/tailbound/tailbound/models/kvpipe"
)

// A pipeline for 2 layers of a 256-token context of a model with 4 KiB of
// KV per token per layer; one timed run at r = 0.3 from the page cache.
func ExamplePipeline_Run() {
	p, err := kvpipe.Open(kvpipe.Config{Layers: 2, MaxTokens: 256, BytesPerTokenLayer: 4096, HeadDim: 8, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	d, err := p.Run(kvpipe.PageCache, 256, 0.3)
	fmt.Println(err == nil && d > 0, p.Config().FileBytes(), "bytes of KV")
	// Output: true 2097152 bytes of KV
}

package characterize_test

import (
	"fmt"

	"github.com/tailbound/tailbound/experiments/characterize"
	"github.com/tailbound/tailbound/models/blocktrace"
)

// Two requests of one conversation share a block; a third request uses a
// block of its own. Four uses of three blocks: one hit in an infinite
// cache, and one live block (the shared one) between the first two
// requests.
func ExampleRun() {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Time: 0, Input: 16, Hashes: []int64{7}, Conv: 0, Category: "text"},
		{Time: 4, Input: 20, Hashes: []int64{8}, Conv: 1, Category: "text"},
		{Time: 9, Input: 32, Hashes: []int64{7, 9}, Conv: 0, Category: "text"},
	}}
	rep, err := characterize.Run(blocktrace.StreamSource(s), s.BlockTokens, characterize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ideal hit ratio %.2f, capacity %d blocks (%d tokens)\n", rep.IdealHitRatio,
		rep.Capacity.PeakLiveBlocks, rep.Capacity.PeakLiveTokens)
	for _, c := range rep.Categories {
		fmt.Printf("%s: %d uses, %d reuses, median reuse time %g s\n", c.Name, c.Uses, c.Reuses, c.ReuseTime.P50)
	}
	// Output:
	// ideal hit ratio 0.25, capacity 1 blocks (16 tokens)
	// text-1: 2 uses, 1 reuses, median reuse time 9 s
	// text-2: 2 uses, 0 reuses, median reuse time 0 s
}

// The same three requests drawn: FigureData holds the points of the
// figures (small enough to store), Figures turns them into plots with
// their file names. Block 7 is live after the first two requests, so the
// ideal policy's cache peaks at 16 tokens from time 0.
func ExampleFigureData_Figures() {
	s := &blocktrace.Stream{BlockTokens: 16, Requests: []blocktrace.Request{
		{Time: 0, Input: 16, Hashes: []int64{7}, Conv: 0, Category: "text"},
		{Time: 4, Input: 20, Hashes: []int64{8}, Conv: 1, Category: "text"},
		{Time: 9, Input: 32, Hashes: []int64{7, 9}, Conv: 0, Category: "text"},
	}}
	rep, err := characterize.Run(blocktrace.StreamSource(s), s.BlockTokens, characterize.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	d := rep.FigureData()
	fmt.Printf("live cache %v tokens at %v s, peak at %g s\n", d.Live.Y, d.Live.X, d.PeakS)
	_, names := d.Figures("tiny")
	fmt.Println(names)
	// Output:
	// live cache [16 16 0] tokens at [0 4 9] s, peak at 0 s
	// [tiny-reuse.svg tiny-lifespan.svg tiny-capacity.svg]
}

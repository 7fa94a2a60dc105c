package suite_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tailbound/tailbound/experiments/suite"
)

// A suite runs as a whole or in shards; merged shards render exactly as
// the whole run.
func ExampleRun() {
	s, err := suite.Lookup("recompute")
	if err != nil {
		fmt.Println(err)
		return
	}
	o := suite.Options{Seed: 1, Small: true, Params: map[string]string{"tiers": "nvme", "cake-tiers": "hdd"}}
	var parts []*suite.File
	for i := 1; i <= 2; i++ {
		f, err := suite.Run(context.Background(), s, o, suite.Shard{I: i, N: 2})
		if err != nil {
			fmt.Println(err)
			return
		}
		parts = append(parts, f)
	}
	merged, err := suite.Merge(parts)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	if err := suite.Render(&b, s, merged, "csv"); err != nil {
		fmt.Println(err)
		return
	}
	// CSV of several tables is in long form: table, row, column, value;
	// its numbers are unrounded (the table shows r0 as 0.3047).
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasSuffix(l, ",1,tier,nvme") || strings.Contains(l, ",1,tokens,") || strings.Contains(l, ",1,r0,") {
			fmt.Println(l[strings.Index(l, ",1,")+3:])
		}
		if strings.Contains(l, ",1,r0,") {
			break // the first table's first row
		}
	}
	// Output:
	// tier,nvme
	// tokens,4096
	// r0,0.30468577517055373
}

// The registry names every suite with its source.
func ExampleAll() {
	for _, s := range suite.All() {
		fmt.Fprintln(os.Stdout, s.Name)
	}
	// Output:
	// tail-latency
	// optimality-gap
	// birth-death
	// block-policies
	// recompute
}

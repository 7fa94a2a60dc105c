package importer_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/tailbound/tailbound/models/importer"
)

// A Mooncake trace of three requests: the second continues the first (its
// full 512-token block [7] and the shared system prompt [0] are the first
// request's full-block chain), the third shares only the system prompt.
func ExampleNewMooncake() {
	in := `{"timestamp": 0, "input_length": 1100, "output_length": 50, "hash_ids": [0, 7, 8]}
{"timestamp": 30000, "input_length": 1600, "output_length": 40, "hash_ids": [0, 7, 9, 10]}
{"timestamp": 31000, "input_length": 700, "output_length": 10, "hash_ids": [0, 11]}`
	src := importer.NewMooncake(strings.NewReader(in), "example.jsonl", importer.DefaultOptions())
	c, err := importer.WriteCanonical(os.Stdout, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v, %d fallbacks\n", src.Summary(), c.Fallbacks)
	// Output:
	// {"t":0,"conv":"1","prompt":1100,"response":50}
	// {"t":30,"conv":"1","prompt":450,"response":40}
	// {"t":31,"conv":"3","prompt":700,"response":10}
	// {Requests:3 Linked:1 Conversations:2 Orphans:0 Forks:0 TurnMismatches:0}, 0 fallbacks
}

// The same trace read for a consumer that needs no conversations (the
// block replay under --no-ideal): the requests are the same, but none is
// linked and the reader keeps nothing per conversation.
func ExampleOptions_noLinking() {
	in := `{"timestamp": 0, "input_length": 1100, "output_length": 50, "hash_ids": [0, 7, 8]}
{"timestamp": 30000, "input_length": 1600, "output_length": 40, "hash_ids": [0, 7, 9, 10]}`
	opt := importer.DefaultOptions()
	opt.NoLinking = true
	src := importer.NewMooncake(strings.NewReader(in), "example.jsonl", opt)
	for {
		r, err := src.Next()
		if err != nil {
			break
		}
		fmt.Println(r.Index, r.Time, r.Input, r.Hashes, r.Conv)
	}
	fmt.Printf("%+v\n", src.Summary())
	// Output:
	// 0 0 1100 [0 7 8] -1
	// 1 30 1600 [0 7 9 10] -1
	// {Requests:2 Linked:0 Conversations:0 Orphans:0 Forks:0 TurnMismatches:0}
}

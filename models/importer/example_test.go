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

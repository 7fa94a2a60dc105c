// Package trace holds tailbound's canonical conversation trace: the Turn
// record, a streaming validating reader, a writer, and the hindsight index
// that tells each turn when its conversation comes back.
//
// The canonical format is JSON Lines, one turn per line, in arrival order:
//
//	{"t": 12.5, "conv": "a", "prompt": 120, "response": 300}
//
// with optional "category" and "user" strings. t is the arrival time in
// seconds (non-decreasing), prompt ≥ 1 and response ≥ 0 are lengths in tokens.
package trace

// Turn is one request of a conversation, as the replay engine sees it.
type Turn struct {
	// Index is the turn's 0-based position in the trace.
	Index int
	// Time is the arrival time in seconds.
	Time float64
	// Conv is the conversation's dense id: conversations are numbered
	// 0, 1, 2, … in order of first appearance. The name is in Reader.ConvName.
	Conv int
	// Prompt is the user prompt length in tokens (≥ 1).
	Prompt int64
	// Response is the model response length in tokens (≥ 0).
	Response int64
	// Category is the optional request type ("" when absent).
	Category string
	// User is the optional user id ("" when absent).
	User string
}

// Record is the JSON shape of one canonical trace line.
type Record struct {
	T        float64 `json:"t"`
	Conv     string  `json:"conv"`
	Prompt   int64   `json:"prompt"`
	Response int64   `json:"response"`
	Category string  `json:"category,omitempty"`
	User     string  `json:"user,omitempty"`
}

// Package replaytest generates random traces for the property tests of the
// replay engine and of the policies (pgregory.net/rapid generators).
package replaytest

import (
	"pgregory.net/rapid"

	"github.com/tailbound/tailbound/models/trace"
)

// Shape bounds a random trace. Lengths are in tokens.
type Shape struct {
	// Conversations is the most conversations (at least 1 is drawn).
	Conversations int
	// MinTurns and MaxTurns bound the number of turns.
	MinTurns, MaxTurns int
	// MaxPrompt bounds the prompts (1 to MaxPrompt tokens) and MaxResponse
	// the responses (0 to MaxResponse tokens).
	MaxPrompt, MaxResponse int64
}

// Trace returns a generator of traces of shape s: turn k arrives at k
// seconds, in a conversation drawn uniformly among the drawn number,
// named "a", "b", ….
func Trace(s Shape) *rapid.Generator[*trace.Trace] {
	return rapid.Custom(func(t *rapid.T) *trace.Trace {
		convs := rapid.IntRange(1, s.Conversations).Draw(t, "conversations")
		tr := &trace.Trace{}
		for k := rapid.IntRange(s.MinTurns, s.MaxTurns).Draw(t, "turns"); k > 0; k-- {
			c := rapid.IntRange(0, convs-1).Draw(t, "conv")
			tr.Append(float64(len(tr.Turns)), string(rune('a'+c)), rapid.Int64Range(1, s.MaxPrompt).Draw(t, "prompt"), rapid.Int64Range(0, s.MaxResponse).Draw(t, "response"))
		}
		return tr
	})
}

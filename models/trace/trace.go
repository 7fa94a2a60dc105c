package trace

// Trace is a whole trace in memory: its turns in arrival order and the
// conversation names indexed by dense id.
type Trace struct {
	Turns []Turn
	Names []string
}

// Conversations returns the number of distinct conversations.
func (t *Trace) Conversations() int { return len(t.Names) }

// Append adds a turn for conversation name, interning the name. It is the
// way tests and generators build traces; it sets Index and Conv.
func (t *Trace) Append(time float64, name string, prompt, response int64) {
	id := -1
	for i, n := range t.Names { // small traces only; generators use their own ids
		if n == name {
			id = i
			break
		}
	}
	if id < 0 {
		id = len(t.Names)
		t.Names = append(t.Names, name)
	}
	t.Turns = append(t.Turns, Turn{Index: len(t.Turns), Time: time, Conv: id, Prompt: prompt, Response: response})
}

// Hindsight is the hindsight index of a trace: for every turn, the index of the
// next turn of the same conversation (or -1 if it never returns). It is built
// once in O(K) time and memory for K turns.
type Hindsight struct {
	Turns []Turn
	Next  []int
}

// NewHindsight builds the hindsight index of turns.
func NewHindsight(turns []Turn, conversations int) *Hindsight {
	next := make([]int, len(turns))
	seen := make([]int, conversations)
	for i := range seen {
		seen[i] = -1
	}
	for k := len(turns) - 1; k >= 0; k-- {
		c := turns[k].Conv
		next[k] = seen[c]
		seen[c] = k
	}
	return &Hindsight{Turns: turns, Next: next}
}

// NextPrompt returns the prompt length in tokens of the next turn of turn
// k's conversation, and false if the conversation never returns.
func (h *Hindsight) NextPrompt(k int) (int64, bool) {
	n := h.Next[k]
	if n < 0 {
		return 0, false
	}
	return h.Turns[n].Prompt, true
}

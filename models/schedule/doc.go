// Package schedule reads, checks, scores and writes schedules: the cache
// decisions of a conversation-level policy that ran outside tailbound (a
// prototype in another language, the log of a serving engine), one JSON
// line per turn of a canonical trace, so that tailbound can measure it
// exactly like a built-in policy and compute its gap to the hindsight
// optimum.
//
// # Format
//
// A schedule is JSON Lines, one object per turn of the trace it belongs to.
// Lengths are tokens; every amount is a whole number of blocks. Fields:
//
//	turn       0-based index of the turn in the trace (optional)
//	conv       the turn's conversation name, as in the trace (optional)
//	conv_turn  0-based index of the turn within its conversation (optional,
//	           with conv)
//	cached     tokens of the conversation's history cached when the turn
//	           arrived (x_k)
//	keep       tokens the conversation keeps once the turn is served
//	shrink     [[conversation, tokens], ...]: conversations cut back to
//	           tokens after the keep, in order (a conversation may appear
//	           more than once; each entry is one eviction)
//
// A line names its turn by "turn", or by "conv" and "conv_turn", or, when
// it has neither, by its position (the n-th line is turn n−1). A "conv"
// next to "turn" or a position is checked against the trace. Every turn
// must have exactly one line. Blank lines are skipped.
//
// A schedule has one of two forms:
//
//   - Arrival form: every line has "cached" and none has "keep" — what a
//     serving engine's log gives (the prefix-cache hit of each request).
//     The occupancy it implies is the least that realizes it: with optional
//     caching a conversation holds, from the end of one turn to its next,
//     what that next turn finds (nothing if it never returns); with forced
//     caching it holds its whole history until the next turn of the trace
//     is decided, then what its own next turn finds. Evictions are counted
//     on that occupancy.
//   - Decision form: every line has "keep" (and "shrink" when it evicts
//     from other conversations); "cached" is optional and, when given, is
//     checked against what the earlier lines leave. It replays a policy's
//     decisions one for one, so every metric (evictions included) is the
//     policy's own. tailbound simulate --emit-schedule writes this form.
//
// # Rules
//
// The schedule is checked against the model exactly as a built-in policy is
// (package cache), step by step, and the first violation is reported as
// FILE:LINE: turn K (conversation "c"): what, with the numbers on each side,
// and the rule:
//
//   - whole blocks: every amount is a multiple of the block size B;
//   - at most the history: a conversation keeps at most its history ⌊H/B⌋·B
//     and at most the capacity C (nothing at its first turn);
//   - no growth between a conversation's turns: only the served
//     conversation may grow, so a shrink never raises an amount and a
//     turn's "cached" is what its conversation kept;
//   - capacity: after every turn's decisions at most C tokens are cached;
//   - forced: with forced caching, the served conversation keeps its whole
//     history (at most C) at its turn.
//
// A line that is not JSON (a truncated file), an unknown field, or a count
// of lines that is not the trace's count of turns is reported the same way.
//
// # Worked example
//
// The trace (B = 16 tokens, C = 32 tokens, optional caching)
//
//	{"t":0,"conv":"a","prompt":20,"response":12}
//	{"t":1,"conv":"b","prompt":16,"response":0}
//	{"t":2,"conv":"a","prompt":8,"response":0}
//
// gives a a history of 32 tokens after its first turn and b one of 16. LRU
// keeps a's 32 tokens, then at b's turn keeps b's 16 and cuts a to 16 to
// fit 32; a returns and finds 16 tokens. Its decision form is
//
//	{"turn":0,"conv":"a","cached":0,"keep":32}
//	{"turn":1,"conv":"b","cached":0,"keep":16,"shrink":[["a",16]]}
//	{"turn":2,"conv":"a","cached":16,"keep":32,"shrink":[["b",0]]}
//
// and its arrival form is the "cached" column alone:
//
//	{"cached":0}
//	{"cached":0}
//	{"cached":16}
//
// Both score a's second turn as 40 − 16 = 24 uncached tokens. (The arrival
// form "cached":32 on the third line is valid too: a holds 32 tokens while
// b, which never returns, keeps nothing; it is a better schedule than LRU's.)
// A third line saying "cached":48 breaks the at-most-the-history rule in
// either form (a's history is 32 tokens), and "cached":32 on the third line
// of the decision form breaks the no-growth rule (the earlier lines leave a
// 16 tokens):
//
//	schedule.jsonl:3: turn 2 (conversation "a"): cached 32 tokens, but the earlier lines leave it 16 (rule: no growth between a conversation's turns)
package schedule

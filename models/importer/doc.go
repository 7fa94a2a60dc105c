// Package importer reads the published block-hash request traces — the
// Mooncake traces (FAST'25 release) and the Alibaba Bailian traces of the
// workload study (seed 000) — into the block-level stream of package
// blocktrace, validating every line, and derives conversations from them:
// from parent ids where the format has them (Bailian), from shared hash
// prefixes where it does not (Mooncake). A Canonicalizer turns the derived
// conversations into tailbound's canonical conversation trace (package
// trace), and the blocks format (below) stores a block stream with its
// conversation ids so that it can be read back without re-deriving them.
//
// # Formats
//
// Mooncake (512-token blocks), one JSON object per line:
//
//	{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2]}
//
// timestamp is the arrival time in integer milliseconds; lengths are tokens.
//
// Bailian (16-token blocks), one JSON object per line:
//
//	{"chat_id": 7, "parent_chat_id": -1, "timestamp": 12.5, "input_length": 40,
//	 "output_length": 9, "type": "text", "turn": 1, "hash_ids": [3, 4, 5]}
//
// timestamp is the arrival time in seconds (a JSON number); parent_chat_id
// is −1 for a first turn.
//
// # Validation
//
// Every line must be a JSON object with every field of its format present
// and not null; fields not in the format are ignored. A line that breaks a
// rule below is a *ParseError naming the file, the 1-based line and the
// field; blank lines are skipped.
//
//   - timestamp: ≥ 0 and not earlier than the previous line's (Mooncake: a
//     JSON integer; Bailian: a finite number).
//   - input_length, output_length: JSON integers ≥ 0 (tokens).
//   - hash_ids: an array of JSON integers (int64; any sign).
//   - chain length: by default (ChainCeil) len(hash_ids) must equal
//     ⌈input_length / B⌉ for the format's block size B — every prompt token
//     lies in exactly one block, the last one possibly partial. Both
//     Mooncake files satisfy this on every line. ChainFloor accepts traces
//     that hash full blocks only (len = ⌊input_length / B⌋), ChainAny skips
//     the check.
//   - Bailian chat_id: a JSON integer ≥ 0, unique in the file;
//     parent_chat_id: −1 or ≥ 0 and not the line's own chat_id; turn: a JSON
//     integer ≥ 1; type: one of text, search, image, file (Options.ExtraTypes
//     adds more).
//
// Facts that involve several lines and that a sampled trace can show
// legitimately are not errors but are counted in Summary: a parent that is
// not an earlier line of the file (Orphans), a second child of the same
// parent (Forks) and a turn number that is not the parent's plus one, or
// not 1 for a first turn (TurnMismatches; an orphan's turn is not checked).
//
// # Blocks format
//
// The blocks format is tailbound's own block-level stream, written by
// "tailbound import --to blocks" (WriteBlocks) and read by NewBlocks: JSON
// Lines, one request per line, in arrival order, self-describing so that a
// line needs no header:
//
//	{"t": 0.5, "conv": 0, "input": 600, "output": 20, "block": 512, "hashes": [0, 1]}
//
// Fields:
//
//   - t: arrival time in seconds (finite, ≥ 0, non-decreasing).
//   - conv: the derived conversation id, an integer ≥ 0; ids are dense in
//     order of first appearance (a new id is one more than the largest so
//     far).
//   - input, output: prompt (history included) and response lengths in
//     tokens, ≥ 0.
//   - block: the block size in tokens that the hashes stand for, ≥ 1 and the
//     same on every line.
//   - category: the request type, optional ("" or absent when unknown).
//   - hashes: the prompt's chain of block ids (integers), first block first;
//     its length follows the chain rule (⌈input/block⌉ by default).
//
// # Conversations
//
// Every request gets a conversation id (blocktrace.Request.Conv ≥ 0), dense
// in order of first appearance; a request that continues no earlier one
// starts a conversation of its own.
// (Options.NoLinking turns the Mooncake derivation off for consumers that
// read no conversation ids: every Conv is then −1.)
//
// Bailian: a request continues its parent's conversation when the parent is
// that conversation's latest request. A request whose parent is absent
// (orphan) or not the latest of its conversation (fork: a retry or an
// edited earlier turn) starts a new conversation.
//
// Mooncake has no ids. Let a request's full-block chain be the first
// ⌊input_length/B⌋ ids of its chain (the blocks whose content cannot change
// when the conversation grows; the last, partial block is rewritten by the
// next turn). A request R continues conversation c when the full-block
// chain of c's latest request is a prefix of R's chain and is longer than
// MinSharedBlocks (k) blocks. Among several such conversations R continues
// the one with the longest such chain, and among equal chains the most
// recently continued. A conversation whose latest full-block chain has at
// most k blocks can never be continued. The k leading blocks are the
// system-prompt guard: a system prompt is a prefix shared by many unrelated
// requests, and linking through it would chain strangers. On the Mooncake
// conversation trace every one of the 12,031 requests starts with the same
// block (a 512-token system prompt followed by 7,373 distinct second
// blocks) and no other block has more than 11 distinct successors, so the
// shared system prompt spans one block and k = 1 (DefaultMinSharedBlocks).
// The synthetic trace has no common first block.
//
// # Canonical prompts
//
// The canonical format records a turn's new prompt p_k, not its whole
// input; the history H_k (the sum of p + r over the conversation's earlier
// canonical turns) is implied. The Canonicalizer sets p_k = input_k − H_k,
// which is input_k − input_{k−1} − output_{k−1} as long as no earlier turn
// of the conversation fell back, so that the canonical prefill load
// D_k = H_k + p_k equals the trace's input exactly. When input_k − H_k < 1
// (the request re-sends less than the whole history: a retry of the same
// prompt, a response left out of the context, a truncated context) it falls
// back to p_k = 1, the least the format allows, keeping the link (the cached
// history is still reusable): that turn's canonical load then exceeds the
// trace's input by H_k + 1 − input_k tokens, the least any p_k ≥ 1 allows.
// Fallbacks and the excess tokens are counted. A first turn gets
// p_1 = max(input, 1) (fallback when input is 0).
package importer

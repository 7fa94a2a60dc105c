// Package stackcurve replays turn-level LRU at many capacities in one pass
// over a trace: a capacity curve (hit ratio, TEL, every TTFT percentile, SLO
// violations, evictions) for little more than the cost of one point.
//
// # Why one pass suffices: LRU is a stack algorithm
//
// Notation: B is the block size (tokens); conversation j's history after its
// latest turn is H_j tokens and n_j = ⌊H_j/B⌋ its whole blocks (capacity-
// free). The *recency sequence* S lists the blocks of every conversation with
// n_j > 0, conversations from the most recently served to the least, and
// each conversation's blocks in depth order (block 1 of its history first).
// S does not depend on the capacity.
//
// Claim. At every capacity C (a multiple of B), after every turn, LRU's cache
// is exactly the first min(C/B, |S|) blocks of S: conversation j caches
// clamp(C/B − A_j, 0, n_j) blocks, where A_j is the number of blocks of the
// conversations served after j's latest turn.
//
// Proof, by induction over the turns. Before the first turn both sides are
// empty. Let turn k serve conversation c, and let the cache before it be
// the prefix P of length min(C/B, |S|) of S (hypothesis). Write S' for S
// with c's blocks removed; P minus c's blocks is a prefix of S' (removing
// one conversation's blocks from a prefix leaves a prefix of what remains).
// LRU (SPEC §4; policy.NewLRU) then
//
//  1. keeps the served conversation whole up to C: c gets
//     min(B·n'_c, C) tokens, its new n'_c ≥ n_c blocks truncated to C/B,
//     i.e. the first min(n'_c, C/B) blocks of the new sequence
//     S_new = (c's n'_c blocks) · S'. It never shrinks c: its old amount
//     x_k ≤ min(n_c, C/B) blocks;
//  2. while the total exceeds C, removes blocks from the end of the least
//     recently used conversation's cache, i.e. trims from the back of the
//     cached part of S'; c is the most recent, so it is trimmed only when
//     nothing else is left, which never happens because c alone fits.
//
// After step 1 the cache is c's first min(n'_c, C/B) blocks followed by a
// prefix of S'. If P was all of S, that prefix is all of S'; otherwise
// |P| = C/B and the total is min(n'_c, C/B) + C/B − x_k ≥ C/B. In both cases
// step 2 trims the tail of the cached prefix of S' until the total is
// min(C/B, |S_new|): the cache is the first min(C/B, |S_new|) blocks of
// S_new. ∎
//
// Forced caching (instance.Params.Forced) requires the served conversation
// to keep min(⌊H_c/B⌋·B, C) tokens — exactly what LRU keeps — and takes it
// out of the eviction candidates, which LRU never touches anyway (step 2).
// So forced LRU makes the same decisions as optional LRU, and the claim
// holds in both modes.
//
// # What one pass computes
//
// Turn k of conversation c arrives with history h = H_c and cached amount
// x_k(C) = B·clamp(C/B − A_c, 0, n_c): that is every figure of the turn
// (b = h + p − x, TEL, TTFT, SLO) at every capacity. The engine keeps S as
// a doubly linked list of conversations (move-to-front on each turn) and,
// per capacity, a finger on the *boundary*: the least recent conversation
// with cached blocks and how many it caches. Conversations ahead of the
// boundary (by latest-turn index) are cached whole, those behind it not at
// all, so x_k(C) is one comparison. After the turn, the evicted blocks are
// the tail of the old cached prefix: the finger walks towards the front,
// one step per conversation that loses blocks, which is exactly what the
// cache state counts as an eviction. Per turn that is O(1) per capacity plus
// one step per eviction, against a replay per capacity; the metrics are fed
// the same (h, x, d) in the same order as a replay, so every figure,
// floating-point sums included, is bit-for-bit the replay's.
//
// Evicted tokens follow from the totals: at each turn B·(min(n'_c, C/B) −
// x_k/B) tokens enter and the total ends at B·min(C/B, |S|).
package stackcurve

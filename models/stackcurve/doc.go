// Package stackcurve replays turn-level and block-level LRU at many capacities in one pass
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
// a doubly linked list of conversations (move-to-front on each turn) and
// the capacities' *boundaries*: at C, the conversation y with
// A_y < C/B ≤ A_y + n_y, the least recent one with cached blocks (it caches
// C/B − A_y of them); conversations ahead of it (by latest-turn index) are
// cached whole, those behind it not at all. Before the cache fills, C/B
// exceeds every conversation's blocks together and the boundary is a
// sentinel behind the list's tail. The metrics are fed the same (h, x, d)
// in the same order as a replay, so every figure, floating-point sums
// included, is bit-for-bit the replay's.
//
// # Capacities that share a boundary move together
//
// Which conversation is the boundary depends on C only through
// C/B ∈ (A_y, A_y + n_y], so the points (the capacities, in increasing
// order) fall into groups of consecutive points with one boundary y and
// one A_y between them (groups.go). A turn of conversation c classifies
// each group by one comparison of latest-turn indices: y ahead of c (c
// caches nothing), y = c (c caches C/B − A_c, the points between the runs
// below), or y behind c (c cached whole). By the claim, the blocks ahead of
// y grow by n'_c in the first case and by n'_c − n_c in the last; a group
// stays at y, one update for all its points, except for its points whose
// C/B the new A_y reaches, a prefix of it found by binary search, which
// walk towards the front together, conversation by conversation, each
// landing (binary search again) at the first conversation z with
// A'_z < C/B; the points of c's group all walk from c's old place (they
// land on c itself when C/B ≤ n'_c). Adjacent groups that land on one
// conversation join. On a trace where a few conversations' histories run
// past every capacity, every capacity's boundary is that conversation
// most of the time: one group, one update per turn, where a finger per
// capacity moved 32 times.
//
// Evictions count the conversations that lose blocks at a turn: at a
// point that stays, y (if a conversation, and A_y grew); at a point that
// walks, y, every conversation it passes, and the one it lands on unless
// C/B = A'_z + n_z exactly (z then cached whole) or z = c (c only grows),
// which is what the cache's eviction loop counts. They go to a difference
// array over the points, one entry per group or landing. Evicted tokens
// follow from the totals: at each turn B·(min(n'_c, C/B) − x_k/B) tokens
// enter — a constant or a multiple of C over runs of points, so difference
// arrays again — and the total ends at B·min(C/B, |S|).
//
// # Block level: LRU over the prefix tree is a stack algorithm too
//
// The block-level cache (models/prefixcache: Cache with NewLRU) serves a
// request whose chain is b_0 … b_{n−1}, a root-first path of the prefix tree
// (distinct blocks; b_j is b_{j+1}'s parent). Its rules, read from the code:
// the hit is the longest cached prefix b_0 … b_{k−1}; b_{k−1} is pinned; the
// hit blocks are used (moved to the front of the recency list, root first);
// while the n − k missing blocks do not fit, the victim is the evictable
// block nearest the list's back — evictable meaning cached, without a cached
// child and not pinned; if none is left, only b_k … b_{m−1} with
// m = min(n, C) are admitted (C in blocks here); the admitted blocks are used
// in depth order.
//
// Let S be the *block stack*: every block ever used, ordered by (latest use,
// descending; depth, ascending) — the request index of the latest use, and
// among the blocks of one request the root first. S does not depend on C.
// A block's parent is used in every request that uses the block, and is
// shallower, so it stands before the block in S: every prefix of S is
// prefix-closed (every block's parent is in it), and along a chain the
// positions in S increase.
//
// Claim. At every capacity C, after every request, the cache is the first
// min(C, |S|) blocks of S.
//
// Proof, by induction over the requests. Before the first both sides are
// empty. Let the cache before a request be P, the first min(C, |S|) blocks
// of S. (1) The hit. P is prefix-closed, so b_j ∈ P implies b_0 … b_j ∈ P:
// the longest cached prefix is the chain's blocks in P, k = #{j : pos_S(b_j)
// < C}. (2) The recency list orders the cached blocks as S does (each
// request moves the blocks it uses to the front in depth order), so its back
// is P's last block, a leaf of P (its children stand after it). After the
// hit blocks move to the front, the back is a hit block only when every
// cached block is one; otherwise the back is not pinned and is the victim,
// and, removed, leaves a prefix of S again. So while room is needed, the
// engine removes the last block of P \ chain in S's order, until either
// the n − k missing blocks fit or only the hit blocks are left (a non-hit
// cached block always has a non-hit cached leaf below it — a hit block's
// ancestors are hit blocks — so no non-hit block survives an empty
// evictable set). (3) Let S' be the new stack: b_0 … b_{n−1}, then S without
// the chain. If n ≤ C, the engine evicts only while needed, so it keeps the
// chain and the first min(|P| − k, C − n) blocks of P without the chain, a
// prefix of S without the chain. That number is min(C, |S'|) − n: if P is
// all of S, the chain's blocks in S are the k hit ones and |P| − k =
// |S'| − n; if |P| = C, then |P| − k ≥ C − n and |S'| − n ≥ |P| − k. So the
// cache is the first min(C, |S'|) blocks of S'. If n > C every non-hit block
// goes and b_k … b_{C−1} are admitted: the cache is b_0 … b_{C−1}, the first
// C blocks of S'. ∎
//
// Neither rule that could have broken inclusion does: pinning only shields
// a block that is at the back when nothing else is cached, and leaf-only
// eviction never bites because S's order already puts every block behind
// its parent. The cut admission (a chain longer than the cache keeps its
// first C blocks, where block-by-block LRU would keep its last C, which is
// not prefix-closed) is the first C blocks of S' as well.
//
// So one pass (BlockLRU) keeps S as stamps in a Fenwick tree (Mattson's
// stack distances): before a request it reads the positions of the chain's
// blocks used before (a prefix of the chain) up to the largest capacity; the
// hit at C is the number below C; the chain is restamped, root newest; and
// the evictions follow from the sizes, min(C, |S|) before plus
// min(n, C) − k admitted minus min(C, |S'|) after. The metrics are then fed
// what a replay feeds them, in the same order. A chain is restamped as one
// run of consecutive stamps, and its blocks keep them until their next use;
// a block stamped one below the one before it along a chain is one
// position deeper, so the tree is read once per run of consecutive stamps,
// and each run is removed and the new one added by a range update in
// O(run + log), not a point update per block.
//
// # Long histories: one record per turn, not one per turn and capacity
//
// The sums of a metrics.Accumulator cost O(1) per turn, but its exact
// percentiles keep a histogram of uncached counts, and a conversation whose
// history runs far past every capacity has a different, distinct count at
// every turn and every capacity: a histogram entry per turn and capacity,
// which made a 32-capacity curve cost 19× the time and 22× the memory of one
// capacity on a trace of 10^5-turn conversations. Both claims above give
// the cure: a turn's hit is a function of the capacity fixed by a few
// capacity-free numbers — at turn level B·clamp(C/B − A_c, 0, n_c) (A_c, n_c
// in blocks), at block level Σ clamp(C − s, 0, l) over the runs (s, l) of
// consecutive stack positions of its chain's blocks. So a turn whose load is
// at least DeferFrom tokens is recorded once, in a Late store shared by the
// capacities, and each capacity's accumulator counts it by AddLater (sums
// only) and reads its uncached count from the store when a percentile is
// asked. The turn-level engine reads A_c off its points and keeps the
// record only if it gives back every point's cached amount, so the store
// holds nothing the engine did not compute. A capacity's percentiles need
// only four ranks of its counts: metrics selects them from buckets of
// consecutive counts, reading the store's counts (given in batches, in no
// order) twice and keeping only those in the ranks' buckets, where a sort
// per capacity cost a 32-capacity curve as much as the pass. And most turns
// of one run (s, l) have a count that, over the whole range of an engine's
// capacities [C_min, C_max], is a constant (s ≥ C_max: a miss, d; s + l ≤
// C_min: the run hit whole) or a key minus B·C (s < C_min, s + l > C_max
// and key = d + B·s ≥ B·C_max: they hit C − s blocks and leave
// key − B·C ≥ 0). After the pass the store sorts those keys once
// (Late.Freeze) and each capacity reads them by binary search
// (metrics.Shifted): the long conversations' turns on the trace of
// docs/speed.md are nearly all of them.
//
// # Turns that miss or hit whole at a run of capacities
//
// The turns below DeferFrom still cost a histogram entry at each capacity,
// a cache miss each in 32 histograms. But a turn's cached amount does not
// decrease with C, so, the points in increasing order of capacity, those
// where it caches nothing form a prefix and those where it caches its
// conversation's every block a suffix, with one uncached count along each
// (d, and d − B·n_c). The turn counts once for the prefix and once for the
// suffix (shared), and only the points between get an entry each; after the
// pass each point receives the shared counts of the runs that cover it
// (metrics.Accumulator.AddLaterCount). A birth–death turn after a long
// conversation's turn misses at every capacity: one entry instead of 32.
//
// # Sums in integers
//
// The other figures (TEL, Σ b, Σ x, Σ h, Σ d, the largest b, the SLO
// violations) are floating-point sums an accumulator adds in trace order,
// which cannot be regrouped. But each term is a whole number of tokens (the
// TEL a whole number of 2^−k tokens for ξ = X·2^−k), and while every partial
// sum stays at most 2^53 (metrics.Terms.Cost) every floating-point addition
// is exact; so the engine keeps them in integers (metrics.Exact): a turn's
// load and history once for all capacities, its other figures once for each
// run above, and, at the capacities between the runs, where by the claim it
// caches capB − A blocks, as terms linear in capB in difference arrays over
// the capacities (sums.go), added up after the pass and handed over by
// metrics.Accumulator.SetExact bit for bit. Past the budget, or for a ξ with
// no short binary fraction, each capacity adds its turns as before.
package stackcurve

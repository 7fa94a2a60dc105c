// Package prefixtail bounds the hindsight optimum of the tail metrics —
// TEL and SLO violations — of the block-level prefix cache of
// models/prefixcache, the cache that 'simulate --level block' replays.
// Package lp/prefix does the same for block hits, where furthest next use
// is exact; for the tail it is not, and the answer here is an interval
// [lower, upper] with a flag saying whether it is proven optimal.
//
// # The problem
//
// Requests t = 0 … n−1 each name a chain of blocks (a root-to-node path of
// the prefix tree, numbered by one prefixcache.Interner) and an input of
// D_t tokens; blocks hold B tokens; the cache holds C blocks and every
// chain fits (|chain_t| ≤ C, as lp/prefix requires). The cache's rules are
// simulate's: a request hits the longest cached prefix of its chain (k_t
// blocks), the whole chain is admitted after it is served, only leaves of
// the cached prefix tree are evicted, and the hit prefix is pinned while
// the request is served. The request leaves b_t = max(D_t − k_t·B, 0)
// tokens uncached and costs
//
//	TEL:  f_t(k) = max(b_t(k) − ξ, 0)   tokens (ξ the threshold, tokens)
//	SLO:  f_t(k) = 1 if b_t(k) > s else 0   (s the SLO, tokens)
//
// and the problem is to minimize Σ_t f_t(k_t) over all eviction sequences
// the rules allow, knowing the whole trace.
//
// # Intervals and the prefix rule (how the rules enter)
//
// As in lp/prefix, a pair of consecutive uses p < q of a block is an
// interval, x_I ∈ {0,1} says the block stays cached over (p, q), and the
// feasible x are exactly those with (a) x_I = 1 when q = p + 1 (the whole
// chain is admitted — forced admission — so a block used by consecutive
// requests is always hit), (b) the prefix rule x_I ≤ x_J for every interval
// J of the parent inside I (only leaves are evicted, so a cached block's
// parent is cached), and (c) the capacity Σ_{p<t<q} x_I ≤ C − |chain_t| at
// every t (the chain of t, with its hit prefix pinned, is in the cache
// after t is served, beside every kept interval spanning t). lp/prefix's
// package comment proves that these constraints describe exactly the hit
// patterns of the cache, including that evicting lazily (only when
// admission needs room, only leaves, never the pinned prefix) loses
// nothing; it does not depend on the objective.
//
// The depth-j block of chain q is hit iff its interval ending at q is kept
// (or q is its first use: a compulsory miss, never hit). Along a chain the
// kinds come in order — constant intervals (q = p + 1), then variable
// ones, then first uses — since a request that uses a block uses all its
// ancestors; and by (b) the variable ones are kept in a prefix. So
// k_q = c_q + Σ_j x_{I_j(q)} for the c_q constant hits, and because the
// kept variable intervals are a prefix of the chain, telescoping gives the
// exact linear form
//
//	f_q(k_q) = f_q(c_q) − Σ_{j variable} w_{q,j} x_{I_j(q)},
//	w_{q,j} = f_q(j) − f_q(j+1),
//
// for any cost f_q at all. For TEL w is B for blocks above the threshold's
// depth, the remainder for one block and 0 below it; for SLO it is 1 at the
// depth d_q − 1 where b_q first drops to ≤ s and 0 elsewhere. So both
// problems are the hit program of lp/prefix with weights: maximize Σ w_I x_I
// under (a)–(c); the optimum is Base − max Σ w_I x_I with Base = Σ_q f_q(c_q).
//
// The linear form is also what makes the LP relaxation a good bound: a
// piecewise-linear u_q ≥ D_q − ξ − B·k_q would let an LP spread a fractional
// hit over deep blocks, while w charges depth j its own marginal saving, and
// since the w_{q,j} are non-increasing in j (f_q convex for TEL) and x is
// non-increasing along the chain, the LP of the linear form is never weaker.
//
// # Pruning (dropping columns is safe)
//
// An interval I is needed when w_I > 0 or some interval constrained by
// x_K ≤ x_I (K of a child) is needed. Fixing every unneeded interval to 0
// loses nothing: given any feasible x, zeroing the unneeded intervals keeps
// (b) — an unneeded interval's constrained children are unneeded, so
// zeroed too — and (c) (loads only drop), and leaves the objective
// unchanged (their weights are 0). The program is built over needed
// intervals only, which on the Mooncake traces removes most columns.
//
// # Bounds
//
//   - Exact: the integer program (CBC; lp/gonumlp's branch and bound for
//     small instances), checked against exhaustive search over eviction
//     sequences in the tests.
//   - Lower bound that scales: its LP relaxation (0 ≤ x ≤ 1; CLP), a
//     relaxation of an exact formulation, hence ≤ the optimum; or, with no
//     LP solver, the Lagrangian bound below (min-cost flows), which is
//     never above the LP's value and on the Mooncake traces comes within
//     0.13 % of it (CLP's value to its printed digits at most capacities).
//   - Upper bound: feasible eviction sequences, replayed through the real
//     cache (prefixcache.Cache): furthest next use (hit-optimal), tail-aware
//     hindsight rules that evict the leaf whose next use saves least (per
//     unit of time held), and, when the LP was solved, the rule that evicts
//     the leaf whose current interval has the smallest LP value (rounding by
//     replay; ties by furthest next use, or by saving per request held).
//     With the IP's solution the same rule replays its schedule, and an
//     optimum that the replay does not attain is an error. Each replay's cost is recomputed from the hits the cache
//     reports, so the upper bound is a value some schedule attains.
//     Last, Problem.Improve (local.go) searches from the best of them by
//     ruin and recreate over the program's 0/1 points, and replays what
//     it finds the same way.
//
// # The Lagrangian lower bound (no LP solver)
//
// The program of Problem.Program is: maximize Σ w_I x_I over x ∈ {0,1}
// subject to the prefix rows x_I − x_J ≤ 0 (I a child interval, J a parent
// interval inside it) and the capacity rows L_t ≤ cap_t = C − |chain_t|.
// Dualize the prefix rows with multipliers μ_r ≥ 0, one per row r = (I, J):
//
//	Λ(μ) = max { Σ_I w'_I x_I : x satisfies the capacity rows, 0 ≤ x ≤ 1 },
//	w'_I = w_I − Σ_{r: I child} μ_r + Σ_{r: I parent} μ_r.
//
// Validity. For every x feasible for the program (prefix rows included) and
// every μ ≥ 0, Σ w x ≤ Σ w x − Σ_r μ_r (x_I − x_J) = Σ w' x ≤ Λ(μ), since
// each x_I − x_J ≤ 0 and x is feasible for Λ's inner problem. So
// Base − Λ(μ) is a lower bound on the optimum for every μ ≥ 0, whatever
// the multipliers are and however they were found; the search
// (Problem.Lagrangian) only makes it larger. (Λ(μ) is never below the LP
// relaxation's value, and its minimum over μ equals it, by LP duality with
// the capacity polytope integral; the search approaches it from above.)
//
// The inner problem is exact and polynomial: without the prefix rows it is
// the capacity-constrained interval packing of lp/prefix's step (1), a
// network matrix, solved as a min-cost flow on the line (lp.SolveFlow's
// construction): nodes 0..n, line arcs t→t+1 of capacity cap_t and cost 0,
// supplies making every cut carry cap_t, and for each interval I = (p, q)
// with w'_I > 0 an arc p+1 → q of capacity 1 and cost −c_I (an interval of
// weight ≤ 0 is never worth keeping: dropping it only lowers loads).
//
// Rounding. Costs are integers: multipliers are held as whole multiples of
// 2^−s (m_r = 2^s·μ_r, int64) and c_I = ⌈2^s·w_I⌉ − Σ_{I child} m_r +
// Σ_{I parent} m_r, computed exactly, so c_I ≥ 2^s·w'_I. The flow is
// optimal for these costs (mcf certifies it), so Λ(μ) ≤ Σ c_I x_I / 2^s
// exactly (a power-of-two division of an integer below 2^53). The bound
// reported is Base − that, lowered by lagrangeSlack·max(1, Base) to cover
// the rounding of Base and of the weights w_I, which are float64 sums of
// the per-request costs (a relative error of order n·2^−53 for n
// requests, below 10^−10 for any n under 10^6).
//
// The search starts at two points and keeps the better: μ = 0, whose
// bound is already at least CapacityFree (the capacity-free program is the
// same packing without the capacity rows), and the spread multipliers
// (spread, in lagrange.go), which pass each interval's weight up to the
// parent intervals it needs. Past those it is projected subgradient
// descent on Λ with Polyak steps: g_r = x_I − x_J at the inner optimum x is a subgradient, and
// μ_r ← max(0, μ_r + θ·(Λ(μ) − target)/‖g‖²·g_r), target = Base − (best
// replayed cost), θ halved after lagrangeStall steps without a better
// bound. The inner optimum at the best multipliers guides two replays as
// the LP's solution does (lagrangian-rounding, lagrangian-rounding-density).
//
// The interval is proven optimal when the IP solved to optimality, or when
// the upper bound meets the lower bound (for SLO, whose values are
// integers, when ⌈lower − 1e-6⌉ ≥ upper).
//
// # Windowed bounds (issue 33; Windowed, NewRelaxation)
//
// The turn-level version is lp/window. The requests are split into N windows of consecutive
// requests W = [s, e), each bounded on its own, and the sums give an
// interval on the whole trace's optimum OPT.
//
// Lower bound. W's relaxation keeps the intervals I = (p, q) that end in
// W (s ≤ q < e), counts only the costs of W's requests, and keeps only the
// capacity rows of W's steps: an interval that starts before W is cached
// for free up to s (it spans W's steps s … q−1 only), and one that ends at
// s spans none of W's steps. It is built as a trace (NewRelaxation): the
// requests before s that are the last use of some block W references
// (history, no cost, no capacity row), then W's requests. Validity: take
// an optimal x* of the whole program (above) and set, in W's relaxation,
// x_I = x*_I for the intervals ending in W after s — the same intervals as
// in the whole program, a crossing one starting at its block's last use
// before s, which the history keeps — and x_I = 1 for the rest (those
// ending at s, and the history's own, which the compression may merge).
// This point is feasible: at a step of W only intervals ending in W after s
// count, a subset of those x* keeps there (capacity); a prefix row
// x_I ≤ x_J has J inside I, so either J is set to 1 or both end in W after
// s and the row is one of x*'s; every constant interval is kept (x* keeps
// W's, the rest are set to 1). The weights are ≥ 0 (f is non-increasing
// in the hits), so its cost is at most x*'s cost at W's requests (each
// request's cost depends only on the intervals ending at it). So the
// relaxation's optimum is at most x*'s cost on W, and Σ_W of any lower
// bound on each relaxation's optimum (Bound's Lower: the Lagrangian, the
// LP, or the IP) is at most OPT.
//
// Lower overlap (WindowOptions.LowerOverlapRequests = L; window_lower.go).
// Each boundary still lets the next window's relaxation start with what
// it needs cached for free. With l = min(L, ⌊n/N⌋) > 0, window W = [s, e)
// (W > 0) is widened back to W' = [s − l, e) (RelaxationRange; l is at
// most the window before's length, so W' reaches into W − 1 only), and
// request t's cost counts β_W(t)·f_t in W's relaxation: ω_k =
// ⌊1024·(k+1)/(l+1)⌋/1024 for the k-th request of the overlap [s − l, s)
// (OverlapWeight: rising towards W), 1 − ω_k for the same request in
// W − 1, 1 for every other request of W (the first window is not widened,
// the last has no overlap after it). So β ≥ 0 and Σ_W β_W(t) = 1 for every
// request t (exactly: the weights are dyadic; TestOverlapWeightsSumToOne).
// W's relaxation is the relaxation of W' above (history: the last uses
// before s − l of the blocks W' references), with costs weighted by β_W.
//
// Claim: Σ_W of any lower bound on these weighted relaxations is at most
// OPT. Take x* optimal for the whole program and, in W's relaxation, the
// point of the argument above with s − l in place of s (x*_I on the
// intervals ending in W' after s − l, 1 on the rest). It is feasible, by
// the same argument on the steps of W': feasibility does not involve the
// costs. At every request t of W' its hits are at least x*'s (the same
// intervals end at t, or, at t = s − l, all of them kept), so, f_t being
// non-increasing in the hits and β_W(t) ≥ 0, its weighted cost is at most
// Σ_{t∈W'} β_W(t)·f_t(k*_t); the relaxation's optimum is at most that,
// and summing over W, Σ_W Σ_t β_W(t) f_t(k*_t) = Σ_t f_t(k*_t) = OPT. The
// bounds are bounds on weighted optima: the linear form above holds
// request by request, so β_t·f_t(k) = β_t·f_t(c_t) − Σ_j β_t·w_{t,j}·x,
// a program of the same shape with weights β_t·w ≥ 0 (Base and the
// weights scaled: newWeighted; Evaluate weighs the replays alike). The
// pruning argument holds for any weights ≥ 0, the IP is exact for the
// weighted program, its LP relaxation bounds it (the solver's value at
// its point, as for unweighted programs), and the Lagrangian argument
// never used the weights' values: Λ(μ) ≥ Σ w·x for every feasible x and
// μ ≥ 0, with the weights rounded up to whole multiples of 2^−s (c_I ≥
// 2^s·w'_I) as before; a weight's float64 product β·w is exact for TEL
// (β dyadic with 10 bits, w a whole number of tokens below 2^43, as
// with a whole ξ) and
// within 2^−53 relatively otherwise, inside lagrangeSlack. A weighted
// count is not an integer: for SLO with an overlap no window's bound is
// rounded up (Problem.integral is false for a weighted problem, so
// neither the Lagrangian's stop nor the interval's closing rounds), and
// only the sum over all windows, a lower bound on the fewest violations,
// an integer, is rounded up (TotalLower; in one process over every
// window, and in merge). A run's lower bound (a shard's part) is no
// longer at most its own stitched replay (it also counts the run before's
// last requests, weighted), so that check is made on the whole trace
// only. At l = 0 every weight is 1 and nothing changes
// (TestLowerOverlapZeroUnchanged). Shards: a streamed run reads the
// overlap before its first window (SpanRange) and keeps each window's
// widened history (a request of an overlap is in two relaxations; the
// Streaming claim below, with W' for W).
//
// Upper bound. W's restriction is W's requests alone, from an empty cache;
// Bound's best replay on it gives a schedule, read as the intervals it
// kept (I kept iff q hit I's block). The union over windows of those
// intervals, with every interval that crosses a window's start dropped
// (the constant ones, forced, kept), is feasible for the whole program: at
// a step of W only W's intervals count, the prefix rows relate intervals
// of one window, and a constant interval spans no step. Its cost is at
// most Σ_W of the restrictions' costs (a window's first request may also
// hit the blocks its predecessor used). The union is replayed through the
// cache on the whole trace (Replay, rule Guided with the union as guide:
// kept intervals rank above dropped ones), and the replayed cost, a value
// a schedule attains, is the upper bound; a replay above Σ_W of the
// restrictions' costs is an error.
//
// Seams (WindowOptions.SeamRequests = h). The stitched union drops every
// interval that crosses a window's start, so the replay ranks those
// blocks lowest and the next window starts nearly cold. For each boundary
// s between two windows of a run, the requests [s − h, s + h) (clipped to
// the run) are bounded as a restriction of their own (Bound, from an
// empty cache), and the intervals its best replay keeps that cross s
// (start in [s − h, s), end in [s, s + h)) are marked kept in the guide.
// The run is replayed under both guides, and the smaller replayed cost is
// the upper bound. Validity needs nothing of the seams: a replay through
// the cache is a schedule whatever its guide, so its cost is at least the
// optimum; the seamless replay is still checked against the restrictions'
// sum as above, and taking the smaller of the two means seams never widen
// the interval. The seams are not re-solved on the capacity the rest
// leaves (the turn level's seams are): where the seam's crossing
// intervals and the windows' own do not fit together, the cache decides
// by the guide's rank, and the replay is the check.
//
// Joins: runs of windows as shards (WindowedRange, WindowOptions.
// JoinRequests). Each window's relaxation and restriction need nothing
// from the other windows, but the replay of the stitched schedule is one
// pass through the cache over the whole trace, which no shard can run
// alone. Without joins, a shard (a run of consecutive windows [s0, e0))
// replays its own stitched schedule from an empty cache at s0, and the
// runs' replayed costs are summed: each run's replay is a schedule of its
// requests, read as the intervals it kept (all inside the run), and their
// union, every interval that crosses a run's start dropped, is feasible
// for the whole program by the argument above (runs in place of windows),
// at a cost at most the sum. The upper end pays a cold cache at each of
// the n − 1 run boundaries.
//
// Replaying a warm-up before s0 and counting from s0 is not an upper
// bound: the previous run's replay and the warm-up may both hold blocks
// over the same steps before s0, which no one schedule can
// (TestWindowedJoinNotNaive: 1,560 against an optimum of 1,872). A join
// fixes that by handing the cache over through a replay both runs can
// compute. With j = min(JoinRequests, ⌊n/N⌋/2) (so the two joins of a
// run, each inside the run's windows, never meet), the join at a run
// start s0 is the requests J = [s0 − j, s0 + j) and σ_J is their replay
// from an empty cache by a fixed rule (the best of furthest next use,
// least saving and least saving per request on J and a window past it,
// computed from those requests alone, so both runs get the same σ_J). The
// run [s0, e0) replays [s0 − j, e0 + j) through one cache from empty: as
// σ_J over its start join, by its guide after, and over its end join J'
// as the shadow of σ_J', served in lockstep: it never evicts a block
// σ_J' holds. It counts [s0 + j, e0 + j) (the first run from 0, the last
// to n), so every request is counted by exactly one run.
//
// Lemma (shadow). Let σ be a run of the cache from state S over requests
// [u, v), and G ⊇ S a state (both prefix-closed, at most C blocks). The
// cache run from G that, whenever it must make room for request t,
// evicts a leaf that σ does not hold after serving t exists, hits at
// least as many blocks as σ at every request, and holds at v every block
// σ holds. Proof, by induction on t with X ⊇ S_t (X the shadow's state,
// S_t σ's, before t): the shadow's hit is the longest cached prefix of
// chain_t, so at least σ's. Let R be the chain's blocks X lacks, to be
// admitted; S_{t+1} ⊆ S_t ∪ chain_t ⊆ X ∪ R. While |X| + |R| > C, since
// R ⊆ chain_t ⊆ S_{t+1} and |S_{t+1}| ≤ C, X holds a block not in
// S_{t+1}; a deepest such block is a leaf of X (a cached child of it
// would be in S_{t+1}, whose parent then would be too, S_{t+1} being
// prefix-closed), and it is not on chain_t (⊆ S_{t+1}), so not pinned:
// an evictable leaf, and evicting it keeps X ∪ R ⊇ S_{t+1}. After the
// admission the state is X ∪ R minus such blocks ⊇ S_{t+1}. ∎ Each
// request's cost is non-increasing in its hits, so the shadow costs at
// most σ at every request.
//
// Claim. The runs' counted costs add up to at least the cost of one
// schedule Γ of the whole trace, hence to at least the optimum. Γ is
// built run by run, with the invariant that at s_k + j (s_k the start of
// run k) Γ's state contains σ_k's state there, which is run k's replay's
// state at s_k + j (it replays σ_k over the join, from the same empty
// cache by the same rule). From there Γ runs the shadow (lemma) of run
// k's replay over [s_k + j, s_{k+1} + j): at most run k's counted cost
// at every request, and at s_{k+1} + j a state containing run k's, which
// contains σ_{k+1}'s (run k's replay is σ_{k+1}'s shadow over the join,
// and that the lemma's two conclusions hold is checked at run time: a
// shadow hit below σ's, or a block σ holds at the join's end that the
// shadow does not, is an error). Run 0 starts both at 0 from an empty
// cache. ∎ The lower end does not depend on the runs; a join trades the
// cold start at s0 for a join whose schedule is pinned to σ_J's blocks
// where they fill the cache.
//
// Streaming (Span, WindowedSpan; experiments/blocktail.LoadSpan). A run
// [s0, e0) of windows reads the trace's requests only in SpanRange: the
// start join's J requests before s0 (and its J after), the run, the end
// join's J requests after e0 and a window past them (the join's rule's
// lookahead). Everything else it reads of the trace is the relaxations'
// histories, and a history is a function of much less than the requests
// before the window. Claim: WindowedSpan on a Span whose History[k] holds,
// for window W = [s, e) of the run, the requests HistoryOf names with
// their inputs and chains, computes the same figures as WindowedRange on
// the whole trace. Every Problem it builds is built from the same
// requests: the run, joins and seams from Span's requests (the same
// requests, re-indexed alike), the relaxations from the same history and
// window requests (NewRelaxationOf), and newProblem, Bound and the
// replays read of a request only its Blocks and Input (and Index, which
// both re-number); nothing else differs. ∎ What a streamed reader must
// hold to rebuild the histories in one pass: (i) the history of W is
// {u(b) : b referenced in W}, u(b) the last use of block b before s;
// reading the trace in order with lastUse[b] updated after each request,
// u(b) is lastUse[b] at the first request of W that references b (before
// it, no request of W does, so lastUse[b] < s is the last use before s;
// after it, lastUse[b] ≥ s). (ii) The chain of a history request u is
// the path from the root to its last block: the Interner numbers a block
// by its parent and hash, so every block has one parent (newProblem
// checks it), and the chain is recovered from a parent per block and a
// last block per request. So one pass holding, per distinct block, its
// parent and its last use, and per request before the run's last window
// its last block and input, gives the histories exactly;
// TestLoadSpanRapid checks the streamed span against WindowedRange on
// random traces, runs, seams and joins.
//
// One process (WindowedFlat; experiments/blocktail.LoadFlat). The trace
// is read once, from a file or standard input, into a Flat: per block
// reference its block (4 bytes), per request its first reference and its
// input (16 bytes), nothing else of a request. The windows' problems are
// built from it one at a time, their blocks renumbered 0, 1, … in id
// order (renumber), so that their arrays indexed by block follow the
// window, not the trace's largest id; the bounds do not change, since a
// problem reads an id only to tell blocks apart and to order them (ties,
// parents before children), which an increasing renumbering keeps
// (TestRenumberRapid). The stitched replay runs in the one engine ("One
// engine" below) over the Flat in place: per reference its previous and
// next use (4 + 4 bytes) and one byte of flags (kept by the plain guide;
// by the seamed one; needed, for the columns), the columns computed as
// newProblem computes endCol ≥ 0 and the columns' starts, without the
// program (TestLookaheadColumnsRapid checks them against the batch
// reference newReplayTrace, which TestReplayTraceRapid checks, and its
// replay, against the program and Problem.Replay); per block its parent
// and last use (two int32). So the process holds about 13 bytes per
// reference, 16 per request and 8 per distinct block of the trace, and
// the replay's key per cached block. It does not follow the window, and
// cannot without changing the upper bound: rule Guided ranks a block accessed at t by
// its next use (ties, and every interval no guide keeps, by furthest next
// use; a block never used again lowest), so which of two cached blocks the
// replay evicts at t can turn on which of them is used again first,
// arbitrarily far past t — any request of the rest of the trace; and
// whether a kept interval has a column turns on the intervals of its
// block's descendants that contain it, which may end as far past it.
// Deciding at t needs the rest of the trace's next uses, held here as one
// int32 per reference. The next section bounds how far the replay looks
// instead.
//
// # Bounded lookahead (WindowedLookahead, window_lookahead.go)
//
// With a lookahead h ≥ 1 requests, the stitched replay, while it serves
// window W = [s, e), knows the next uses before the horizon hz_W =
// min(n, e + h) and nothing past it (Lookahead). Its rule (lookPolicy):
// a block last accessed at t whose next use nx is known ranks as in rule
// Guided, (x, −nx), x = 1 when the interval (t, nx) is kept by the guide
// and is a column of the program of the requests [0, hz_W); a block
// whose next use is not known (past hz_W, or none) ranks as never used
// again, below every other, the least recently accessed first, then the
// lower id; when a window starts, the cached blocks whose next use its
// horizon has just reached are re-ranked, so at every request the ranks
// are what the next uses before the current horizon say. Keys are held
// per cache slot.
//
// Claim 1: the replayed cost is an upper bound on OPT for every h. The
// replay runs the cache itself (prefixcache.Cache: forced admission, only
// leaves evicted, the hit prefix pinned); the rule only picks which
// evictable leaf goes. So its hits are those of an eviction sequence the
// rules allow, a schedule, and its cost (recomputed from the cache's hits)
// is at least the optimum. The lower bound is not touched: every window's
// relaxation and restriction, their bounds and the seams are computed as
// in WindowedFlat, from the same requests (the histories rebuilt as in
// "Streaming" above).
//
// The columns. Rule Guided ranks a kept interval above the rest only when
// it has a column of the whole trace's program, and whether it has one
// can turn on a descendant's interval that ends arbitrarily far ahead
// (Pruning: an interval is needed when it has a positive weight or
// contains a needed child interval). The bounded replay uses the columns
// of the program of the requests before hz_W instead: an interval ending
// before hz_W is needed there when its weight is positive or a needed
// child interval that also ends before hz_W contains it. Dropping requests
// only drops intervals, so these are a subset of the whole trace's
// columns, and at hz_W = n they are the whole trace's. Any choice keeps
// claim 1 (the guide is a ranking, the cache keeps the rules). It also
// keeps the stitched replay's check against the restrictions' sum: every
// interval a window's restriction keeps lies in the window, so it ends
// before e ≤ hz_W and is known at its start (this is why the horizon is
// counted from the window's end, not from t); the kept intervals that are
// not columns before hz_W have weight 0 and only such intervals of the
// children contain them, so dropping them from the stitched union leaves
// a feasible point of the same cost (the Pruning argument on the program
// of [0, hz_W)), and the replay ranks what is left above every variable
// interval the union does not keep, as rule Guided does. The check is made
// at run time, as before: an error, never a number.
//
// At h ≥ n the horizon is n for every window and the replay is rule
// Guided's on the whole trace, hit for hit: the ranks of the blocks used
// again are the same, and the order among the blocks never used again
// (least recently accessed first instead of by id) decides no hit, since
// they rank below every other and their descendants are never used again
// either, so whichever of them goes, the blocks used again that stay
// cached and the number of the others are the same
// (TestLookaheadWholeRapid: WindowedFlat's figures to the last digit).
//
// What is held. The trace is read once, in order; a window is bounded
// when its last request is read, a seam when its last is, and a window is
// replayed when the requests up to its horizon and the seams before it
// are in. Held are the requests from the earliest of the next window to
// replay, the next relaxation's first request (its lower overlap) and the
// next seam's, up to what was read: about a window, h, two seams and a
// lower overlap (and the last request read, so that a constant interval's
// previous use is held when it is read); per held reference its block,
// previous and next use and two kept flags (13 bytes). For the whole
// trace, with the last uses' histories: per block its parent and its last
// use (two int32) and per request its chain's last block and its input
// (12 bytes), the histories' sources ("Streaming"), and the interner's
// table; with carried histories (next section) none of these but the
// reader's interner. Joins (shards) are refused: a shard's run goes
// through the same engine with the run's whole lookahead (WindowedSpan).
//
// # One engine (lookRun, window_lookahead.go)
//
// Every windowed run at block level goes through one loop, lookRun: in
// one process with the whole trace's lookahead (WindowedFlat, Windowed:
// lookahead 0, the horizon the run's end for every window), with a
// bounded one (WindowedLookahead, streamed), and as a shard's run of the
// windows first … last (WindowedSpan, WindowedRange: the run's whole
// lookahead). It reads the run's requests in order, from the first any
// step reads (the start join's first, or the first relaxation's when its
// lower overlap reaches further back) to the replay's end b (the end
// join's last request; the trace's end for the last run); it bounds a
// window when the window's last request is read, a seam when the seam's
// last is, and replays a window when the requests up to its horizon and
// the seams before the horizon are in. The replay serves the requests
// [a, b) (a: the start join's first request, or the run's) from an empty
// cache, a use before a being no previous use (the run's own trace, as
// "Joins" has it), ranks the start join's requests by the join's rule
// and shadows the end join's replay over the last requests (runPlan's
// rules, "Joins"; the shadow's two checks made as before), and counts
// from the start join's end. The histories are read from the Span (a
// shard), or rebuilt from the held requests: with the whole lookahead
// every window is bounded before a request is dropped, so a history
// request's chain is read in place; with a bounded one from a parent per
// block and a last block per request ("Streaming"). The columns are
// extended as the horizon advances (extend: the needed intervals of the
// program before the horizon only grow with it, and a reference is
// marked needed only from references of the same or later requests, so
// a worklist over the newly needed ones reaches newReplayTrace's fixed
// point on the references still held), one pass over the run whatever
// the horizons.
//
// With the whole run's lookahead the result is that of the loop the
// engine replaced (a replay over the run's replayTrace by rule Guided,
// runPlan), to the last digit. A block with no next use in the run ranks
// (−∞, id), rule Guided's order (a bounded lookahead ranks them least
// recently accessed first, which decides no hit, above). The start
// join's keys (P, T) enter the slot-keyed order as (P, T'·2³² + id), T'
// the next use T = −nx renumbered from the join's first request to the
// run's (T' = T − a; T' = 0 when T = 0), so that they interleave with
// rule Guided's keys as before, ties by id. A differential rapid test
// against the replaced loop before its deletion (20,000 random cases:
// runs, seams, joins, overlaps of both weightings, carried histories,
// histories from the span or rebuilt, two lower-bound solvers) found
// every figure equal, and the command-line runs of branch h50unify's
// report gave byte-identical output. Shards still refuse carried
// histories: a shard's carried history would be built from its span's
// last-use histories (chainSet), so it would hold no less than they do,
// and no merged output has been compared with a one-process run's for
// them.
//
// # Carried histories (WindowOptions.CarriedHistory, window_carried.go)
//
// The last uses' history of the relaxation over the requests W' = [s, e)
// (a window, or one widened by its lower overlap) holds, for every block
// W' references, its last use before s, with that request's whole chain:
// a function of the trace before s that no reader can keep in memory
// bounded by the window (the last use of any block ever seen may be
// asked for). What the relaxation's optimum needs is less. Let F be the
// blocks W' references that some request before s references (carried).
// F is closed under parents: a block's parent is on every chain that
// holds it. The carried history H_F is one request per leaf of F (a block
// of F with no child in F), its chain the leaf's root path (all of it in
// F, as the chains of W' give it), its input the chain's tokens (never
// read: a history request has no cost), ordered by the leaf's first
// reference in W', the latest first, and last the longest prefix P of
// the chain of request s − 1 whose blocks W' references (when not empty;
// the leaf's request equal to it left out): a root path in F (W'
// references a block's parent wherever it references the block), put
// last so that request s hits as constant the blocks it shares with
// s − 1, as in the trace and as the last uses' history has it whenever
// s − 1 shares a block with W'. Free, as every history (no cost, no
// capacity row). It is a function of the chains of W' and of s − 1 and
// one bit per block they reference. The claims below hold for any set
// of root paths in F that covers F, in any order.
//
// Claim 1 (validity). Σ_W of any lower bound on the relaxations over
// H_F is at most OPT, as for the last uses (Lower overlap, with s − l
// for s). Take x* optimal for the whole program, and in the relaxation
// x_I = x*_{I*} for every interval I ending in W' after s, I* the whole
// trace's interval of the same block ending at the same request (I itself
// when I starts in W'; for I = (u', q) crossing s, its block is in F and
// I* = (u, q), u its last use before s), and x_I = 1 for the intervals
// ending at or before s. Capacity: at a step of W' only the intervals
// ending in W' after s count, and each spans the same steps of W' as its
// I* (a crossing one s … q − 1), one to one, so the load is at most x*'s.
// A prefix row x_I ≤ x_J (J of the parent, inside I): if J ends at or
// before s, x_J = 1; else I and J end in W' after s and J* ⊆ I*: when J
// starts in W' it lies inside I*, which starts where I does or before;
// when J crosses s so does I (an interval starting in W' holds none that
// starts before it), and J* = (u(b), q_b) with u(b) ≥ u(c) (the parent b
// is on the chain of c's last use) and q_b ≤ q (b is on q's chain). So
// the row is one of the whole program's, kept by x*. Constant intervals
// inside W' are the trace's (W' is consecutive); those ending at s are
// set to 1. Every request of W' hits at least x*'s blocks (the same
// intervals end there after s; at s every carried block is kept, and a
// block not in F is a first use in both), so the weighted cost is at most
// x*'s on W', as before. ∎
//
// Claim 2 (the same optimum). The relaxations over H_F and over the last
// uses have the same optimum, the same LP relaxation value and the same
// capacity-free bound. In either, an interval ending at or before s spans
// no capacity row (only history steps), and the parent intervals inside
// it end before s too; so raising all of them to 1 keeps every row (a
// parent raised only loosens x_child ≤ x_parent) and never costs (weights
// ≥ 0): some optimal point, of the IP and of the LP alike, keeps them
// all. What is left is the same program in both: its columns are the
// intervals ending in W' after s, named by (block, end) — for a block of
// F its one crossing interval ends at its first reference in W', in both
// —, each spanning the same capacity rows of W', with the same weights
// (a request's weights depend only on which of its references are first
// uses, constant or variable within W', and at s every carried block is
// kept); and the same prefix rows: for I and J both starting in W' they
// are the same intervals; a J crossing s lies inside a crossing I in
// both (in H_F every history request holding c holds its parent b, so b's
// last history use is at or after c's; in the last uses u(b) ≥ u(c)); a J
// starting in W' (at or after s) inside (·, q) lies inside a crossing I
// in both; and a crossing J never lies inside an I that starts in W'.
// Pruning keeps the optimum, so the IP and LP values are equal; the
// capacity-free bound is Σ_t β_t·f_t(m_t), m_t the leading blocks of
// chain t with an earlier use in the relaxation's trace, which depends
// only on F (TestCarriedHistoryRapid: the same capacity-free bound to the
// last digit and the same IP and LP values by lp/gonumlp on random
// traces, windows and overlaps). ∎
//
// What differs, and so why carried histories are a choice and not the
// default: the history count (History: the leaves of F, against the
// distinct last uses); and the Lagrangian bound, which is not the
// program's optimum but its value at two starts. Its μ = 0 start packs the
// positive-weight intervals, every interval ending at or before s taken
// for free, so Λ is the same, but the bound is Base − Λ − slack with
// slack = lagrangeSlack·max(1, |Base|), and Base counts an interval
// ending at s as a constant hit (in Base) when its block is on the
// history's last request and as a column otherwise, so when s − 1
// shares no block with W' (the last uses' last request is then an
// earlier one, P empty) the slack, and the bound, may differ by up to
// 10⁻⁹ of Base; the spread start shares a
// child's weight among the parent intervals inside it, whose number
// (those between two history requests included) depends on the history's
// layout; and the relaxation's replays, which set the search's target and
// stop, serve the history requests through the cache. The upper bound
// never reads a history and is the same to the last digit.
//
// Held with a bounded lookahead. The previous use of a reference comes
// from a table of the held blocks' last held uses (pruned when requests
// are dropped: at most the blocks the held requests reference,
// TestCarriedHeldBounded); a block whose last use was dropped gets the
// marker base − 1 (base the first held request when it is read), which
// every reader takes only as "before the held requests" (not constant:
// the request before is always held; before every window, seam and mark
// still to come); a block never seen gets −1, seen being one bit per
// block id (idSet: 1 bit per distinct block for an Interner's dense ids,
// 0.125 bytes, the one thing held that still grows with the trace). The
// carried blocks of W' are those with a reference in W' whose
// previous use is before s. The checks move: a chain longer than the
// capacity is refused as before; a block twice in one chain, and a block
// at another depth or after another parent than at its last use, are
// refused when that use is held; a block whose last use was dropped is
// not checked against it (an Interner numbers a block by its parent and
// hash, so with its ids it cannot differ).
package prefixtail

import (
	"fmt"
	"math"
	"sort"

	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/models/prefixcache"
)

// Kind is the tail metric minimized.
type Kind int

// The metrics.
const (
	// TEL is Σ max(b − ξ, 0), tokens.
	TEL Kind = iota
	// SLO is the number of requests with b > s.
	SLO
)

// String returns "tel" or "slo".
func (k Kind) String() string {
	if k == SLO {
		return "slo"
	}
	return "tel"
}

// Objective is the cost of one request.
type Objective struct {
	// Kind is TEL or SLO.
	Kind Kind
	// XiTokens is the TEL threshold ξ, tokens (TEL).
	XiTokens float64
	// SLOTokens is the SLO s, uncached tokens: a request violates it when
	// b > s (SLO).
	SLOTokens float64
}

// Uncached returns b = max(d − k·block, 0), tokens, for an input of d
// tokens with k hit blocks of block tokens.
func Uncached(d int64, k int, block int64) int64 { return max(d-int64(k)*block, 0) }

// Cost returns f(k), the request's cost with k hit blocks: excess tokens
// for TEL, 0 or 1 for SLO. d is its input, tokens; block the block size,
// tokens.
func (o Objective) Cost(d int64, k int, block int64) float64 {
	b := float64(Uncached(d, k, block))
	if o.Kind == SLO {
		if b > o.SLOTokens {
			return 1
		}
		return 0
	}
	return max(b-o.XiTokens, 0)
}

// Problem is one instance: a trace's requests, the block size, the
// capacity and the objective, with its intervals indexed.
type Problem struct {
	// Reqs are the requests, chains numbered by one prefixcache.Interner.
	Reqs []prefixcache.Req
	// BlockTokens is the block size B, tokens.
	BlockTokens int64
	// CapacityBlocks is the capacity C, blocks.
	CapacityBlocks int
	// Obj is the cost of a request.
	Obj Objective

	// free counts the leading requests that are history (NewRelaxation):
	// their costs are not counted and their capacity rows do not bind.
	free int
	// weights, when not nil, scales each request's cost: request t costs
	// weights[t]·f_t(k) (a window's lower overlap, window_lower.go); nil
	// weighs every request 1.
	weights []float64
	off     []int // off[t]: index of request t's first reference
	// per reference (off[t]+d): next use of the same block (-1 none), and
	// the column of the interval starting / ending there (-1: none, or
	// constant, or pruned).
	next   []int32
	endCol []int32
	// Cols are the needed variable intervals.
	Cols []Interval
	// Base is Σ_t f_t(c_t): the cost when no variable interval is kept.
	Base float64
	// RefBlocks counts block references.
	RefBlocks int64
	// PrecedenceRows counts the prefix-rule rows among needed intervals.
	PrecedenceRows int
	prec           [][2]int32 // (child col, parent col): x_child ≤ x_parent
}

// Interval is a needed variable interval: block Block kept over requests
// (P, Q), at depth Depth of both chains, saving Weight at Q when kept (in
// the objective's units: tokens for TEL, violations for SLO).
type Interval struct {
	Block  prefixcache.BlockID
	P, Q   int32
	Depth  int32
	Weight float64
}

// New indexes reqs (chains numbered by one prefixcache.Interner, Index =
// position) at a capacity of capacity blocks of block tokens under obj.
// A chain longer than the capacity, or a block repeated within a chain, is
// an error naming the request.
func New(reqs []prefixcache.Req, block int64, capacity int, obj Objective) (*Problem, error) {
	return newProblem(reqs, 0, block, capacity, obj)
}

// newProblem is New with the first free requests history: not counted in
// the cost (Base, the weights, Evaluate) and with no capacity row (Program,
// pack), so the intervals that start among them and end later are cached
// for free up to the first counted request.
func newProblem(reqs []prefixcache.Req, free int, block int64, capacity int, obj Objective) (*Problem, error) {
	return newWeighted(reqs, free, nil, block, capacity, obj)
}

// newWeighted is newProblem with request t's cost scaled by weights[t]
// (nil: 1 each; else one weight in [0, 1] per request): Base, the
// interval weights and Evaluate are the weighted ones, so every bound of
// the program (the IP, its LP relaxation, the Lagrangian) is a bound on
// Σ_t weights[t]·f_t(k_t) (package comment, "Lower overlap").
func newWeighted(reqs []prefixcache.Req, free int, weights []float64, block int64, capacity int, obj Objective) (*Problem, error) {
	if weights != nil && len(weights) != len(reqs) {
		return nil, fmt.Errorf("%d weights for %d requests", len(weights), len(reqs))
	}
	for t, w := range weights {
		if !(w >= 0 && w <= 1) {
			return nil, fmt.Errorf("request %d: weight %v outside [0, 1]", t, w)
		}
	}
	if err := checkSetting(block, capacity, obj); err != nil {
		return nil, err
	}
	p := &Problem{Reqs: reqs, BlockTokens: block, CapacityBlocks: capacity, Obj: obj, free: free, weights: weights, off: make([]int, len(reqs)+1)}
	total := 0
	for t := range reqs {
		if r := &reqs[t]; r.Index != t {
			return nil, fmt.Errorf("request %d: index %d, want its position %d", t, r.Index, t)
		}
		p.off[t] = total
		total += len(reqs[t].Blocks)
	}
	depth, err := chainDepths(len(reqs), func(t int) []prefixcache.BlockID { return reqs[t].Blocks }, capacity)
	if err != nil {
		return nil, err
	}
	p.off[len(reqs)] = total
	p.RefBlocks = int64(total)
	p.next = make([]int32, total)
	prev := make([]int32, total) // previous use, -1 none
	last := make([]int32, len(depth))
	for i := range last {
		last[i] = -1
	}
	for t := range reqs {
		for d, id := range reqs[t].Blocks {
			if last[id] == int32(t) {
				return nil, fmt.Errorf("request %d: block %d occurs twice in its chain", t, id)
			}
			prev[p.off[t]+d] = last[id]
			last[id] = int32(t)
		}
	}
	for i := range last {
		last[i] = -1
	}
	for t := len(reqs) - 1; t >= 0; t-- {
		for d, id := range reqs[t].Blocks {
			p.next[p.off[t]+d] = last[id]
			last[id] = int32(t)
		}
	}
	// Weights per reference and Base.
	weight := make([]float64, total)
	for t := free; t < len(reqs); t++ {
		r := &reqs[t]
		c := 0
		for d := range r.Blocks {
			if prev[p.off[t]+d] == int32(t-1) && t > 0 {
				c++
			} else {
				break
			}
		}
		beta := p.weight(t)
		p.Base += beta * obj.Cost(r.Input, c, block)
		for d := c; d < len(r.Blocks); d++ {
			if prev[p.off[t]+d] < 0 {
				break
			}
			weight[p.off[t]+d] = beta * (obj.Cost(r.Input, d, block) - obj.Cost(r.Input, d+1, block))
		}
	}
	// Needed intervals: a reference's interval (prev, t) is variable when
	// prev ≥ 0 and prev < t−1. needed[ref] by reverse request order is not
	// enough (a child interval's parent intervals end at or before it);
	// process blocks deepest-first: block ids number parents before
	// children, so descending ids visit children first.
	needed := make([]bool, total)
	for i := range weight {
		needed[i] = weight[i] > 0
	}
	// uses[id]: the requests using block id, in order.
	uses := make([][]int32, len(depth))
	for t := range reqs {
		for _, id := range reqs[t].Blocks {
			uses[id] = append(uses[id], int32(t))
		}
	}
	for id := len(depth) - 1; id >= 0; id-- {
		d := int(depth[id])
		if d == 0 {
			continue
		}
		for _, t := range uses[id] {
			ref := p.off[t] + d
			if !needed[ref] || prev[ref] < 0 || t-prev[ref] == 1 {
				continue
			}
			for _, pr := range p.parentRefs(prev, t, d, prev[ref]) {
				needed[pr] = true
			}
		}
	}
	p.endCol = make([]int32, total)
	for i := range p.endCol {
		p.endCol[i] = -1
	}
	for t := range reqs {
		for d, id := range reqs[t].Blocks {
			ref := p.off[t] + d
			if pv := prev[ref]; needed[ref] && pv >= 0 && int32(t)-pv > 1 {
				p.endCol[ref] = int32(len(p.Cols))
				p.Cols = append(p.Cols, Interval{Block: id, P: pv, Q: int32(t), Depth: int32(d), Weight: weight[ref]})
			}
		}
	}
	for j, iv := range p.Cols {
		if iv.Depth == 0 {
			continue
		}
		for _, pr := range p.parentRefs(prev, iv.Q, int(iv.Depth), iv.P) {
			pc := p.endCol[pr]
			if pc < 0 {
				return nil, fmt.Errorf("internal: parent interval of a needed interval is not needed (request %d, depth %d)", iv.Q, iv.Depth)
			}
			p.prec = append(p.prec, [2]int32{int32(j), pc})
		}
	}
	p.PrecedenceRows = len(p.prec)
	return p, nil
}

// parentRefs returns the references ending the variable intervals of the
// parent of the depth-d block of request q that lie inside (start, q): the
// parent is used at start and q, so its intervals there partition it.
func (p *Problem) parentRefs(prev []int32, q int32, d int, start int32) []int32 {
	var out []int32
	for cur := q; cur > start; {
		pr := int32(p.off[cur] + d - 1)
		pp := prev[pr]
		if cur-pp > 1 {
			out = append(out, pr)
		}
		cur = pp
	}
	return out
}

// Value returns the objective of a choice of kept intervals (one value in
// [0, 1] per column): Base − Σ w·x. For a 0/1 x satisfying the rules it is
// the exact cost; for an LP point, the LP's value.
func (p *Problem) Value(x []float64) float64 {
	v := p.Base
	for j, iv := range p.Cols {
		v -= iv.Weight * x[j]
	}
	return v
}

// Evaluate returns the cost of a run that hit hits[t] blocks at request t:
// Σ f_t(hits[t]).
func (p *Problem) Evaluate(hits []int) float64 {
	v := 0.0
	for t := p.free; t < len(p.Reqs); t++ {
		v += p.weight(t) * p.Obj.Cost(p.Reqs[t].Input, hits[t], p.BlockTokens)
	}
	return v
}

// weight returns request t's cost weight: 1, or weights[t].
func (p *Problem) weight(t int) float64 {
	if p.weights == nil {
		return 1
	}
	return p.weights[t]
}

// integral reports whether every schedule's cost is an integer, so that a
// lower bound may be rounded up: SLO with every request weighing 1. A
// weighted count (a window's lower overlap) is not.
func (p *Problem) integral() bool { return p.Obj.Kind == SLO && p.weights == nil }

// Program returns the integer program: columns 0 … len(Cols)−1 are the x_I
// (binary), the rest load variables s_t (t = 0 … n−1) in flow form as in
// lp/prefix, rows the flow rows then the prefix rows. It minimizes −Σ w·x,
// so the optimum cost is Base + its objective.
func (p *Problem) Program() *lp.Problem {
	n := len(p.Reqs)
	nc := len(p.Cols)
	flowRows := max(n-1, 0)
	type entry struct {
		row int
		val float64
	}
	ents := make([][]entry, nc+n)
	rowLo := make([]float64, flowRows, flowRows+len(p.prec))
	rowUp := make([]float64, flowRows, flowRows+len(p.prec))
	for j, iv := range p.Cols {
		// x enters the load at t = P+1 (row P) and leaves at t = Q (row Q−1).
		ents[j] = append(ents[j], entry{int(iv.P), -1}, entry{int(iv.Q) - 1, 1})
	}
	for _, pr := range p.prec {
		r := len(rowLo)
		rowLo = append(rowLo, math.Inf(-1))
		rowUp = append(rowUp, 0)
		ents[pr[0]] = append(ents[pr[0]], entry{r, 1})
		ents[pr[1]] = append(ents[pr[1]], entry{r, -1})
	}
	prob := &lp.Problem{NumRows: len(rowLo), NumCols: nc + n, RowLo: rowLo, RowUp: rowUp, Integer: make([]bool, nc+n)}
	for j := 0; j < nc+n; j++ {
		if j < nc {
			prob.Obj = append(prob.Obj, -p.Cols[j].Weight)
			prob.ColLo = append(prob.ColLo, 0)
			prob.ColUp = append(prob.ColUp, 1)
			prob.Integer[j] = true
			continue
		}
		t := j - nc
		prob.Obj = append(prob.Obj, 0)
		prob.ColLo = append(prob.ColLo, 0)
		up := float64(p.CapacityBlocks - len(p.Reqs[t].Blocks))
		if t < p.free {
			up = float64(nc) // history: no capacity row (nc bounds any load)
		}
		if t == 0 {
			up = 0
		}
		prob.ColUp = append(prob.ColUp, up)
		if t >= 1 {
			ents[j] = append(ents[j], entry{t - 1, 1})
		}
		if t+1 < n {
			ents[j] = append(ents[j], entry{t, -1})
		}
	}
	prob.ColStart = make([]int, 1, nc+n+1)
	for j := range ents {
		e := ents[j]
		sort.Slice(e, func(a, b int) bool { return e[a].row < e[b].row })
		for _, x := range e {
			prob.RowIndex = append(prob.RowIndex, x.row)
			prob.Value = append(prob.Value, x.val)
		}
		prob.ColStart = append(prob.ColStart, len(prob.Value))
	}
	if nc == 0 {
		prob.Integer = nil
	}
	return prob
}

// chainDepths checks the n chains chain(0), …, chain(n−1) of a trace as
// the bound needs them: each fits in capacity blocks, no block id is
// negative, and each block is always at the same depth after the same
// parent (the chains were numbered by one interner). It returns each
// block id's depth (−1: an id no chain holds; ids are dense from 0).
func chainDepths(n int, chain func(t int) []prefixcache.BlockID, capacity int) ([]int32, error) {
	var depth []int32
	var parent []prefixcache.BlockID
	for t := 0; t < n; t++ {
		ch := chain(t)
		if len(ch) > capacity {
			return nil, fmt.Errorf("request %d: its chain of %d blocks exceeds the capacity of %d blocks (the bound needs every chain to fit)", t, len(ch), capacity)
		}
		par := prefixcache.BlockID(-1)
		for d, id := range ch {
			if id < 0 {
				return nil, fmt.Errorf("request %d: block id %d at depth %d is negative", t, id, d)
			}
			for int(id) >= len(depth) { // unseen ids (a window's trace need not start at id 0)
				depth = append(depth, -1)
				parent = append(parent, -1)
			}
			if depth[id] < 0 {
				depth[id], parent[id] = int32(d), par
			}
			if depth[id] != int32(d) || parent[id] != par {
				return nil, fmt.Errorf("request %d: block %d at depth %d after block %d was first seen at depth %d after block %d (chains not numbered by one interner)", t, id, d, par, depth[id], parent[id])
			}
			par = id
		}
	}
	return depth, nil
}

// checkSetting checks a bound's setting: blocks of block ≥ 1 tokens, a
// capacity of capacity ≥ 0 blocks, and a threshold that is a number.
func checkSetting(block int64, capacity int, obj Objective) error {
	if block < 1 {
		return fmt.Errorf("block size %d tokens must be ≥ 1", block)
	}
	if capacity < 0 {
		return fmt.Errorf("capacity %d blocks is negative", capacity)
	}
	if obj.Kind == TEL && math.IsNaN(obj.XiTokens) || obj.Kind == SLO && math.IsNaN(obj.SLOTokens) {
		return fmt.Errorf("threshold is NaN")
	}
	return nil
}

// Package window bounds the hindsight TEL optimum of a trace too long to
// solve in one piece: the horizon is cut into windows of consecutive steps,
// each window is solved twice on its own (a relaxation and an admissible
// restriction, both exact min-cost flows on the window's line network, as
// lp.SolveFlow builds for the whole trace), and the sums are a certified
// interval [Lower, Upper] around TEL_opt. Windows are independent: they can
// be solved in any order, on different machines, and merged by summing.
//
// Notation as in lp: step t is turn t's arrival, the cache state "at step
// t" is the one right after turn t's update; a pair (p, n) of consecutive
// turns of a conversation carries z_n blocks, which occupy the steps
// p..n−1 (optional caching) or p+1..n−1 (forced caching, where turn p's
// conversation also holds F_p = min(⌊H/B⌋, C/B) blocks at step p and z_n =
// F_p when n = p+1). A window W = [a, b) is a range of steps; turn n
// belongs to the window of step n. The TEL is Σ_n max(D_n − B·z_n − ξ, 0),
// each turn counted in exactly one window.
//
// # Lower bound: each window starts from any cache state for free
//
// Window W's relaxation R_W has the variables z_n of the pairs ending in W
// (n ∈ W) and only the capacity rows of W's steps: for every t ∈ W,
//
//	Σ_{pairs (p,n), n ∈ W, t in the pair's steps} z_n ≤ cap_t,
//
// with cap_t = C/B (optional) or C/B − F_t (forced), the same caps 0 ≤ z_n
// ≤ min(⌊H_n/B⌋, C/B) and the same fixed z_n = F_{n−1} for forced pairs
// with n = p+1. A pair that starts before a occupies only its steps in W
// (it is cached at a for free); one that ends at n = a occupies no step of
// W at all and carries its cap for free. Its value L_W is the least
// Σ_{n∈W} max(D_n − B·z_n − ξ, 0) over R_W.
//
// Claim: Σ_W L_W ≤ TEL_opt. Let z* be a global optimum and z*|W its pairs
// ending in W. z*|W is feasible for R_W: its caps and fixed amounts are the
// global ones; at a step t ∈ W the left side above sums the z*_n of the
// pairs that end in W and occupy t, a subset of all the pairs that occupy
// t in the global schedule (those ending after b are left out, and a pair
// is never counted at a step it does not occupy, since its steps in R_W are
// its global steps intersected with W), so it is at most the global
// occupancy at t, which z* keeps ≤ cap_t. This holds for optional and
// forced caching alike: forced caching changes only which steps a pair
// occupies (p+1..n−1) and cap_t (C/B − F_t), both taken from the global
// problem unchanged, and the fixed pairs are fixed to the same values.
// Hence L_W ≤ Σ_{n∈W} max(D_n − B·z*_n − ξ, 0), and summing over the
// windows, which partition the turns, Σ_W L_W ≤ TEL(z*) = TEL_opt. Each
// R_W is the line network of lp.SolveFlow on W's steps, where a pair
// starting before a starts at W's first node (and one ending at a, which
// spans no step of W, is taken at its cap), so it is solved exactly by
// lp/mcf with the same integer piece costs.
//
// # Upper bound: the windows' restrictions, stitched
//
// Window W's restriction S_W has the pairs with both turns in W, plus the
// fixed forced pair (a−1, a); every other pair that crosses a boundary
// carries nothing (z_n = 0; and the first turn of a conversation finds
// nothing, as always). Run does not solve S_W: it reads a schedule of S_W
// off the relaxation's solution, dropping the pairs that cross W's start
// (LowerAndRestricted; dropping pairs only frees capacity at W's steps, so
// it is feasible for S_W), which saves a second flow per window; the
// seams below re-solve what that schedule lacks near W's ends.
// SolveRestricted solves S_W exactly, for comparison. Whatever schedule
// of S_W each window takes, their stitching is admissible for the whole
// trace: the occupancy at a step t ∈ W is made only of pairs
// inside W (a pair crossing a boundary carries 0, the fixed forced pair
// occupies no step) plus the forced hold F_t, exactly what S_W keeps ≤ C/B.
// So the sum of their TELs is the TEL of one admissible global schedule,
// ≥ TEL_opt. The
// windows need nothing from one another (each starts from an empty cache,
// less the fixed forced hold), at the price of the savings of the pairs
// that cross a boundary, which the lower bound gets for free and the
// restrictions forgo.
//
// Those pairs are won back by a second stage, the seams: the seam after
// window W re-solves every pair whose steps and turn lie within h steps of
// the boundary b (h = SeamSteps, at most half of either window), those
// crossing b included, on the capacity the restrictions' other pairs leave
// at each step (Seam). The restrictions' own amounts are feasible for it,
// so the TEL only falls; the seams of a window's two sides share no step,
// so at each step the stitched schedule's occupancy is that of the
// restrictions changed by at most one seam, which the seam's network keeps
// within capacity. Upper is the restrictions' TELs plus the seams'
// (negative) gains: the TEL of one admissible global schedule, ≥ TEL_opt.
//
// Parallel tasks: the seam after W needs the restrictions' schedules of W
// and W+1 only, which are deterministic; so the task of window W solves
// W's relaxation and W+1's (the one extra solve a task pays; in one
// process it is reused) and the seam, and reports Lower_W and W's
// restricted TEL plus the seam's gain. Tasks need nothing from one another and their figures add
// up: no order, no second pass. Each window's and each seam's schedule is
// checked as every schedule is (lp.Instance.CheckSchedule on the turns
// concerned and the one before them, the TEL recomputed turn by turn);
// since a step's occupancy involves only its window's pairs and at most
// one seam's, those checks together check the global schedule, which the
// tests also check whole.
//
// # SLO violations and percentiles (optional caching)
//
// The fewest SLO violations V(s) (turns with more than s uncached tokens)
// is bounded the same way, each window's problems solved by lp/slo:
// SLOLower's relaxation (the pairs crossing the window's start begin at
// virtual steps before it, which hold only pairs the global schedule holds
// at the step before the window), SLORestricted's restriction, and the
// seam between two windows (SLOSeam) re-solved as for TEL on the capacity
// the restrictions' other pairs leave (slo.Options.Reserved): the
// restrictions' amounts are feasible for it, it is replaced only by a
// schedule with fewer violations among its freed turns, and seams share
// no step, so the stitched schedule stays admissible and its violations,
// the sum of the windows' restricted counts and seam gains, bound V(s)
// from above.
//
// # Lower overlap for V(s): weighted counts
//
// SLOLowerOverlap widens window W's relaxation back by S steps, as
// SolveLowerOverlap does for TEL: its instance is that of SLOLower on the
// widened steps [a − S, b) (the pairs ending there, those crossing a − S
// from virtual steps), and turn n counts ω_{W,n} = overlapWeight(n)/1024
// of a violation — the ramp rising towards W on the S turns before a, the
// rest of the next window's ramp on W's last S turns (none for the last
// window), 1 elsewhere, 0 on the virtual turns. Every turn's weights over
// the windows add up to 1 (its ramp share in the window after its own,
// the rest in its own), the same weights as TEL's.
//
// Claim: Σ_W L_W ≤ V(s), L_W the least Σ_n ω_{W,n}·[n violates] over
// W's widened relaxation. Let x* be a schedule with V(s) violations.
// Restricted to the pairs ending in [a − S, b), with each pair crossing
// a − S carried from its virtual step, it is feasible for the widened
// relaxation (the argument of SLOLower on the widened window: a virtual
// step holds only crossing pairs, all held by x* at step a − S − 1; the
// other steps' rows count a subset of x*'s pairs), and each real turn n
// of the window carries what it carries in x*, so it violates there iff
// it does in x*. Hence L_W ≤ Σ_n ω_{W,n}·[n violates in x*], and summing
// over W, Σ_W L_W ≤ Σ_n (Σ_W ω_{W,n})·[n violates in x*] = V(s). Each
// L_W is bounded from below by lp/slo's WeightedLower (the weighted LP,
// certified by weak duality in whole numbers, in 1/1024 turns), so the
// sum of those bounds is still ≤ V(s); V(s) is a whole number, so the sum
// is rounded up once — not each window's bound, which bounds a weighted
// count, not a whole one. The argument is TEL's with a count in place of
// the TEL; as there, the free cache at the widened start (here: the
// virtual steps) serves first the turns that weigh little.
//
// With weights in {0, 1} instead of the ramp an overlap gains almost
// nothing: ω = 1 on the overlap only moves the boundary, and ω = 0 leaves
// the overlap's own pairs uncounted (so at no cost at 0 blocks), which
// adds the overlap's capacity rows only for the pairs that cross W's
// start, which already share W's first virtual steps — all but the one
// pair that ends exactly at it. Fractional weights are what let the
// overlap's pairs compete for the capacity at a price. Only the LP is
// weighted (SLOBounds.Lower with an overlap is the weighted LP's, whatever
// the backend); the upper end is unchanged.
//
// The lowest Q-th percentile P_Q of uncached tokens is not a sum over
// turns, but P_Q ≤ τ iff V(τ) ≤ K − rank (RunPercentile). So a windowed
// interval [L, U] ∋ V(τ) decides a threshold τ whenever U ≤ K − rank (the
// stitched schedule, admissible, achieves a percentile ≤ τ: an upper
// bound) or L > K − rank (every schedule has more than K − rank turns
// above τ, so P_Q > τ, and since V is non-increasing, P_Q > τ' for every
// τ' ≤ τ: a lower bound). Neither direction needs L or U to be monotone in
// τ, and an undecided τ only leaves the interval wider. The search starts
// from bounds needing no probe (the rank-th smallest least possible
// uncached count of each turn; the percentile of caching nothing).
//
// # Percentiles as shards: a grid of thresholds
//
// The search's next probe depends on the previous probe's sums over every
// window, so it cannot be split among tasks that do not talk to one
// another (it would take one round of tasks per probe). Instead the
// thresholds are fixed in advance (RunPercentileGrid): every task solves
// its windows' relaxations, restrictions and seams at each τ of the grid,
// as for SLO, and reports each window's L_W(τ), U_W(τ) and largest load;
// SumGrid adds them over the windows and decides each τ as above. Lower
// is one more than the largest τ too low (0 when none), Upper the least τ
// achieved (the largest load D_k when none: caching nothing gives no turn
// more), both certified whatever the grid. The shards' sums are the one
// process's, so the merged result equals the one-process grid run. The
// price: no early stop, and an achieved τ bounds P_Q by τ rather than by
// the stitched schedule's own percentile (which would need every shard's
// uncached counts), so a grid is best placed around a one-process
// search's interval, or refined by a second grid inside the first's.
//
// # Streaming
//
// A Splitter reads the trace turn by turn and hands out one window at a
// time, with each turn's history H_n and the global index of its previous
// turn: what a window needs from the turns before it is one int64 and one
// index per conversation. Memory follows the window (and the number of
// conversations), not the trace. A shard's task reads past the windows
// before its own (Splitter.Skip: each turn read and checked, the window
// not built), and reads the file with names interned into a table without
// pointers (trace.ConvTable), so that 2·10^7 conversations cost each
// garbage collection nothing.
package window

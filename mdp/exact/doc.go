// Package exact solves the belief MDP of the birth–death conversation model
// exactly on small instances, and evaluates online policies under the same
// dynamics, to check Theorem 2 of the tail-latency paper (ET-LRU is optimal).
//
// # Model
//
// N seats (2–3 in practice) each hold at most one conversation over the
// horizon. Time runs in steps of Δ seconds. In each step at most one event
// happens: seat i's conversation, silent for m steps, turns with
// probability q_i(m) = λ̄_i·Δ·π_i(mΔ), an empty seat receives a new
// conversation (its first turn) with probability ν·Δ, and nothing happens
// with the remaining probability. π is the world's probability that the
// conversation is alive:
//
//   - World Paper: π(s) = e^{−μs}, the tail-latency paper's belief taken
//     as the truth — a conversation's turn intensity decays as λ̄ e^{−μs};
//   - World Bayes: π(s) = P(alive | silent s) of the birth–death model
//     (mdp/belief.Bayes with the seat's known rate), which makes the seat's
//     turns the predictive law of a conversation that dies at rate μ
//     unobserved: its turn hazard given a silence s is exactly λ̄·π(s).
//
// Both are belief MDPs in the sense of the paper: the state the decision
// maker sees (histories, cached amounts, silences) determines the
// distribution of the future, and λ_i = q_i/Δ is ET-LRU's expected turn
// rate. As Δ → 0 the step process converges to the continuous-time one (at
// most one event per step is the uniformization of the continuous-time
// process at rate 1/Δ, with O(Δ²) per-step error from simultaneous events).
// Prompt and response lengths are drawn from small discrete distributions at
// each turn. The cost of a turn of seat i with prompt Q is
// (H_i + Q − X_i − ξ)⁺ tokens (a first turn has H = X = 0).
//
// Decision epochs are the turns: right after a turn of seat θ is served,
// the decision maker chooses Y with Y_θ ≤ ⌊H_θ/B⌋·B (its new history; all of
// it, capped at C, under forced caching), Y_j ≤ X_j for the others, ΣY ≤ C,
// all in whole blocks of B tokens. Nothing can be decided between turns.
// The horizon is a number of steps, optionally also a number of turns
// (whichever ends first), with an optional discount per step.
//
// # Method
//
// Backward induction with memoization over the reachable states
// (step t, turns k, and per seat: history, cached amount, silence) — the
// state is exactly the decision maker's information that matters, since
// both worlds' hazards depend on a seat's silence only. Post-decision
// values average over the step's events; pre-decision values minimize over
// every admissible Y (or apply a policy's Y). The number of states is
// reported; it grows with the horizon (silences up to it) and with the
// spread of histories.
//
// BruteForce solves the same problem by expectimax over the whole event
// tree without merging states, for checks on the smallest instances;
// EvaluateEngine replays any registered engine policy (models/policy) on
// every path of the tree; Simulate estimates a policy's value by sampling.
//
// # Tolerance
//
// Values are finite sums of products of the model's probabilities and
// integer costs, computed in float64: exact up to rounding, which tests
// bound by 1e-9 relative. Claims compare values with an absolute tolerance
// of 1e-9·(1 + value) tokens.
package exact

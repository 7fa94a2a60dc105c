// Package belief holds what the decision maker of the birth–death
// conversation model believes about a conversation it has not heard from:
// the probability that it is still alive and its expected turn rate.
//
// In the model (SPEC §5, models/birthdeath) a conversation issues turns at
// its own Poisson rate λ̄ while alive and dies at rate μ, unobserved. A
// conversation whose latest turn was s seconds ago is
//
//   - alive with probability exp(−μ·s) under the tail-latency paper's
//     belief (Paper): the prior survival, which ignores what the silence says;
//   - alive with the exact posterior probability (Bayes): given its rate λ̄,
//     it is alive and silent with probability e^{−(μ+λ̄)s}, and dead and
//     silent (it died at u < s before turning again) with probability
//     ∫₀ˢ μ e^{−(μ+λ̄)u} du = μ/(μ+λ̄)·(1 − e^{−(μ+λ̄)s}).
//
// So, for a known rate,
//
//	P(alive | silent s, λ̄) = e^{−(μ+λ̄)s} / (e^{−(μ+λ̄)s} + μ/(μ+λ̄)(1 − e^{−(μ+λ̄)s})).
//
// When λ̄ is unknown (drawn from rate classes or a Gamma distribution), the
// Bayes belief also updates the rate: a conversation first seen at time
// t₁ with n turns, the latest at t_n, was alive on [t₁, t_n] and turned
// n−1 times there, a likelihood ∝ λ̄^{n−1} e^{−λ̄(t_n − t₁)} (its e^{−μ(t_n−t₁)}
// factor does not depend on λ̄); multiplied by the silence likelihood above
// it gives the joint posterior of the rate and of being alive. The expected
// turn rate is E[λ̄·1{alive} | observations].
//
// Conversations are independent in the model, so each belief is per
// conversation.
package belief

//go:build coin

// Package coin solves lp.Problems with COIN-OR CLP (linear programs) and
// CBC (mixed-integer programs) through a thin cgo binding over their C
// interfaces (coin/Clp_C_Interface.h and coin/Cbc_C_Interface.h).
//
// The package builds only with the "coin" build tag and needs the Debian
// packages coinor-libclp-dev, coinor-libcbc-dev and pkg-config:
//
//	go test -tags coin ./lp/coin/
//
// # Data flow
//
// The sparse column-major matrix of an lp.Problem goes to Clp_loadProblem or
// Cbc_loadProblem as it is: the float64 slices are passed by pointer (the
// libraries copy them into their own model), and the column starts and row
// indices are converted once from Go int to CoinBigIndex and C int. No dense
// copy is made. Each call creates its own C model and deletes it before
// returning.
//
// # Time limits
//
// Options.TimeLimit (and a context deadline, whichever is sooner) bounds a
// solve, and the libraries' own limits do not keep it: CLP counts CPU
// seconds of the whole process (Clp_setMaximumSeconds uses CoinCpuTime,
// getrusage RUSAGE_SELF) and checks them between iterations, and overran a
// 60 s limit by up to 13 s on programs with 10^5 to 10^7 non-zeros; CBC
// counts elapsed seconds, but only in branch and bound, not in its root LP,
// cuts and heuristics, and overran a 60 s limit by 417 s at 10^5 turns of
// the compact formulation. A time-limited solve therefore runs in a worker
// process — a copy of the running program, which serves one gob-encoded
// job at initialization when started with the variable workerEnv set —
// that is killed 0.5 s after the limit (at once when the context is
// cancelled); the libraries' limits are still set inside it, so a solve
// they stop in time keeps its best point, and inside it CBC first solves
// the root relaxation with CLP under the limit (see CBC). A killed worker
// reports TimeLimit without a point. Solves without a limit run in the
// calling process, and cancelling their context without a deadline is
// noticed only before they start.
//
// # The compact reduction
//
// CLP (and CBC for LPs, relaxations and its pre-check of the root
// relaxation) first looks for the shape of the compact TEL program
// (lp.BuildCompact): excess rows α·u + β·z ≥ a whose u is a singleton
// column of positive cost, every other entry of z "packing", or capacity
// rows in running-balance form. It then solves an equivalent smaller LP —
// running-balance rows summed to interval rows (an invertible row
// operation, then each free-capacity column is the slack of its row),
// excess rows and u columns eliminated with z capped at a/β (exact for the
// LP, not for the integer program) — maps the optimal point back, checks
// it against the rows as given, and names "compact reduction" in
// Solution.Detail. reduce.go has the proof; TestCompactReduction checks
// equal optima against the rows as built. CLP.Direct skips it. At 10^5
// turns of the default birth–death trace it takes CLP from 51–79 s (dual
// simplex, interval rows; running-balance rows did not finish in 60 s)
// to about 10 s. No CLP setting reachable through the C interface came
// close: perturbation, scaling, presolve off, dual bound, crash, idiot,
// primal or sprint changed the direct solve by at most about 20 %, and a
// starting basis with every u basic by about 40 %.
//
// # Concurrency
//
// CLP calls are safe to run concurrently: each has its own ClpSimplex, and
// the solve is started with CLP's SIGINT handling switched off (by default
// ClpSimplex::initialSolve installs a process-wide SIGINT handler and keeps
// the model in a static variable, which is neither thread-safe nor
// compatible with the Go runtime's signal handling).
//
// CBC's MIP solve runs through CbcMain1, the code behind the cbc command
// line, which keeps its argument cursor and print switch in global
// variables. CBC MIP solves in the calling process are therefore
// serialized by a package-level mutex: concurrent CBC.Solve calls without a
// time limit are safe but run one at a time; time-limited ones run in
// worker processes of their own, concurrently. CBC calls on LPs (and
// relaxations) are solved by CLP and run concurrently.
//
// Neither library prints anything: log levels are set to 0.
//
// # CBC 2.10.8 defects and their workarounds
//
// Checked against exhaustive enumeration on 30 000 seeded random integer
// programs of at most 6 columns and 4 rows with general (not only binary)
// integer columns:
//
//   - With CBC's default MIP preprocessing (CglPreProcess), 33 answers
//     were wrong: "proven optimal" at a worse objective than the optimum
//     (e.g. 15 where 14 is attainable; upstream reports the same class of
//     bug, coin-or/Cbc issue #293). CBC therefore runs with "preprocess
//     off" unless CBC.Preprocess is set; then 0 answers were wrong.
//   - Without preprocessing, 3 instances aborted the process (SIGABRT from
//     an assertion in OsiClpSolverInterface::crunch, which CbcMain1 uses
//     to solve the nodes of models under 300 rows and 500 columns). Such
//     models are loaded with free empty rows up to 300 rows; this leaves
//     the feasible set, the objective and the columns unchanged, and
//     then none aborted.
//
// The instances are kept as tests (TestCBCDefects).
package coin

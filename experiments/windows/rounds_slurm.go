package windows

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tailbound/tailbound/experiments/suite"
)

// RoundsJob is the name of the Slurm jobs of a search in rounds (the merge
// jobs add "-merge").
const RoundsJob = "tailbound-solve-rounds"

// writeRoundsSlurm prints the Slurm job that runs the τ search of solve
// --rounds as a chain of jobs over n shards: given are the command's flags
// as typed, less those of the job itself (--slurm, --shard, --out,
// --format, --round-dir); the result is written in format (json when
// empty) to out (when empty, $OUT/solve-rounds.FORMAT).
//
// The first job (sbatch job.sh) makes the folder $OUT/run-<its job id>,
// copies the script there, and runs the command with --round-dir on it:
// one pass over the trace, the start bounds and the first round's
// thresholds. While the search is not over, that step submits the next
// round: an array of n tasks, each the command with --shard i/n (the
// round's thresholds on its windows), and a job depending on the whole
// array (afterok, cancelled if a task fails) that runs the step again —
// it merges the shard files, decides the thresholds, writes the state and
// submits the next round, or writes the result when the search is over.
func writeRoundsSlurm(stdout io.Writer, given []string, n int, format, out string) error {
	if n < 1 {
		return fmt.Errorf("flag --slurm: want a number of shards ≥ 1, got %d", n)
	}
	cmd := []string{"solve"}
	for _, a := range given {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if name != "slurm" && name != "shard" && name != "out" && name != "format" && name != "round-dir" {
			cmd = append(cmd, suite.ShellQuote(a))
		}
	}
	bin, err := os.Executable()
	if err != nil {
		bin = "tailbound"
	}
	if format == "" {
		format = "json"
	}
	result := `$OUT/solve-rounds.` + format
	if out != "" {
		result = suite.ShellQuote(out)
	}
	_, err = fmt.Fprintf(stdout, `#!/bin/bash
# tailbound solve --rounds: the percentile's τ search as a chain of Slurm
# jobs over %[2]d shards: submit with  sbatch job.sh  (OUT=dir chooses the
# folder, RESULT=file the result). This job reads the trace once (the
# bounds before any probe) and submits the first round; each round is an
# array of %[2]d tasks solving the round's thresholds on their windows,
# then a job that runs only if every task succeeded (afterok), merges
# them, decides the thresholds, writes $OUT/run-<first job id>/state.json
# and submits the next round, or writes the result when the search is
# over. A failed task cancels the chain and leaves no result.
#SBATCH --job-name=%[1]s
#SBATCH --cpus-per-task=1
#SBATCH --output=%[1]s-%%j.log
set -euo pipefail
BIN=${TAILBOUND:-%[3]s}
OUT=${OUT:-tailbound-solve-rounds}
RESULT=${RESULT:-%[5]s}
if [ -z "${RUN:-}" ]; then
  RUN="$OUT/run-${SLURM_JOB_ID:?submit with sbatch job.sh}"
  mkdir -p "$RUN"
  rm -f -- "$RESULT"
  cp -- "$0" "$RUN/job.sh"
fi
export BIN OUT RESULT RUN
if [ "${STEP:-}" = shard ]; then
  exec "$BIN" %[4]s --round-dir "$RUN" --shard "${SLURM_ARRAY_TASK_ID:?}/%[2]d"
fi
"$BIN" %[4]s --round-dir "$RUN" --format %[6]s --out "$RESULT"
if [ ! -e "$RESULT" ]; then
  arr=$(STEP=shard sbatch --parsable --array=1-%[2]d --cpus-per-task=2 --job-name=%[1]s \
    --output="%[1]s-%%A-%%a.log" "$RUN/job.sh")
  STEP=advance sbatch --parsable --job-name=%[1]s-merge --dependency="afterok:${arr%%%%;*}" \
    --kill-on-invalid-dep=yes --output="%[1]s-merge-%%j.log" "$RUN/job.sh"
fi
`, RoundsJob, n, suite.ShellQuote(bin), strings.Join(cmd, " "), result, format)
	return err
}

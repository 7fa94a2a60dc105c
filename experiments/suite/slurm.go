package suite

import (
	"fmt"
	"io"
	"strings"
)

// WriteSlurm writes a Slurm array script that runs suite name's n shards
// as array tasks 1..n and merges them in a job of its own that depends on
// the whole array (sbatch --dependency=afterok): the merge runs only when
// every shard succeeded, and is cancelled otherwise, so a failed shard
// leaves failed array tasks, a cancelled merge job and no merged file.
//
// Each submission writes its shards into a folder of its own,
// $OUT/run-<array job id>/shard-I.json, and the merge job reads exactly
// shard-1..n of that folder: shard files of earlier submissions (other
// settings, another n) are never read, and no lock is left behind.
// Task 1 removes the previous merged output before anything runs, so an
// output file present after the run is this submission's.
//
// The merged output goes to out when not empty, else to $OUT/NAME.FORMAT
// (RESULT=file overrides either at submission). args are the command's
// other arguments (flags), repeated on every shard; bin is the tailbound
// executable (TAILBOUND=path overrides it).
func WriteSlurm(w io.Writer, bin, name string, n int, format, out string, args []string) error {
	return WriteSlurmCommand(w, bin, name, n, format, out, append([]string{"tables", name}, args...))
}

// WriteSlurmCommand is WriteSlurm for any command that writes shard files
// merge reads: each array task runs tailbound with the words cmd (the
// command and its flags, quoted for bash here) and --shard I/n --out
// FILE; name names the jobs and the default output.
func WriteSlurmCommand(w io.Writer, bin, name string, n int, format, out string, cmd []string) error {
	if n < 1 {
		return fmt.Errorf("flag --slurm: want a number of shards ≥ 1, got %d", n)
	}
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = shellQuote(a)
	}
	extra := strings.Join(quoted, " ")
	result := `$OUT/` + name + `.` + format
	if out != "" {
		result = shellQuote(out)
	}
	_, err := fmt.Fprintf(w, `#!/bin/bash
# tailbound suite %[1]s in %[2]d shards: submit with  sbatch job.sh
# (OUT=dir sbatch job.sh chooses the result directory, RESULT=file the
# merged output). Each array task runs one shard on 2 cores into
# $OUT/run-<array job id>/; task 1 also submits the merge as a job that
# runs only if every shard succeeds (--dependency=afterok) and is
# cancelled otherwise, leaving no merged file.
#SBATCH --job-name=tailbound-%[1]s
#SBATCH --array=1-%[2]d
#SBATCH --cpus-per-task=2
#SBATCH --output=tailbound-%[1]s-%%A-%%a.log
set -euo pipefail
BIN=${TAILBOUND:-%[3]s}
OUT=${OUT:-tailbound-%[1]s}
RESULT=${RESULT:-%[6]s}
I=${SLURM_ARRAY_TASK_ID:?run as a Slurm array task: sbatch job.sh}
RUN="$OUT/run-$SLURM_ARRAY_JOB_ID"
mkdir -p "$RUN"
if [ "$I" -eq 1 ] && [ "${SLURM_RESTART_COUNT:-0}" -eq 0 ]; then
  rm -f -- "$RESULT"
  {
    echo '#!/bin/bash'
    echo 'set -euo pipefail'
    printf 'BIN=%%q RUN=%%q RESULT=%%q\n' "$BIN" "$RUN" "$RESULT"
    echo 'trap '"'"'rm -f -- "$RESULT.tmp.$SLURM_JOB_ID"'"'"' EXIT'
    echo 'files=(); for i in $(seq 1 %[2]d); do files+=("$RUN/shard-$i.json"); done'
    echo '"$BIN" merge "${files[@]}" --format %[5]s > "$RESULT.tmp.$SLURM_JOB_ID"'
    echo 'mv -f -- "$RESULT.tmp.$SLURM_JOB_ID" "$RESULT"'
  } > "$RUN/merge.sh"
  sbatch --parsable --job-name=tailbound-%[1]s-merge --dependency="afterok:$SLURM_ARRAY_JOB_ID" \
    --kill-on-invalid-dep=yes --cpus-per-task=1 --output="tailbound-%[1]s-merge-%%j.log" "$RUN/merge.sh"
fi
"$BIN" %[4]s --shard "$I/%[2]d" --out "$RUN/shard-$I.json"
`, name, n, shellQuote(bin), extra, format, result)
	return err
}

// shellQuote quotes s for bash when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=,:+", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellQuote quotes s as one word for bash (as the scripts of
// WriteSlurmCommand quote their commands' words).
func ShellQuote(s string) string { return shellQuote(s) }

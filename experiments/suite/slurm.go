package suite

import (
	"fmt"
	"io"
	"strings"
)

// WriteSlurm writes a Slurm array script that runs suite name's n shards
// as array tasks 1..n, each writing $OUT/shard-I.json, and has whichever
// task finishes last merge them into $OUT/NAME.FORMAT. args are the
// command's other arguments (flags), repeated on every shard; bin is the
// tailbound executable.
func WriteSlurm(w io.Writer, bin, name string, n int, format string, args []string) error {
	if n < 1 {
		return fmt.Errorf("flag --slurm: want a number of shards ≥ 1, got %d", n)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	extra := ""
	if len(quoted) > 0 {
		extra = " " + strings.Join(quoted, " ")
	}
	_, err := fmt.Fprintf(w, `#!/bin/bash
# tailbound suite %[1]s in %[2]d shards: submit with  sbatch job.sh
# (OUT=dir sbatch job.sh to choose the result directory). Each array task
# runs one shard on 2 cores; the last to finish merges the shards.
#SBATCH --job-name=tailbound-%[1]s
#SBATCH --array=1-%[2]d
#SBATCH --cpus-per-task=2
#SBATCH --output=tailbound-%[1]s-%%a.log
set -euo pipefail
BIN=${TAILBOUND:-%[3]s}
OUT=${OUT:-tailbound-%[1]s}
mkdir -p "$OUT"
I=${SLURM_ARRAY_TASK_ID:?run as a Slurm array task}
"$BIN" tables %[1]s%[4]s --shard "$I/%[2]d" --out "$OUT/shard-$I.json"
# Merge once every shard file exists (files are written atomically; mkdir
# is the lock, so exactly one task merges).
if [ "$(ls "$OUT"/shard-*.json | wc -l)" -eq %[2]d ] && mkdir "$OUT/.merge" 2>/dev/null; then
  "$BIN" merge "$OUT"/shard-*.json --format %[5]s > "$OUT/%[1]s.%[5]s.tmp"
  mv "$OUT/%[1]s.%[5]s.tmp" "$OUT/%[1]s.%[5]s"
fi
`, name, n, shellQuote(bin), extra, format)
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

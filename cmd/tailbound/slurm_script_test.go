package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// slurmSim runs a printed --slurm script the way Slurm would, without
// Slurm: each array task is the script under bash with SLURM_ARRAY_TASK_ID
// and SLURM_ARRAY_JOB_ID set, this test binary standing in for tailbound
// (TAILBOUND_AS_MAIN) and a fake sbatch on PATH that records its
// arguments; the merge script task 1 submitted runs only if every task
// succeeded (afterok). scripts/slurm-test does the same on a real Slurm.
type slurmSim struct {
	t   *testing.T
	dir string // the submission folder (the jobs' working directory)
}

func newSlurmSim(t *testing.T) *slurmSim {
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakebin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/bash\nprintf '%s\\n' \"$*\" >> \"$SBATCH_LOG\"\necho 7\n"
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return &slurmSim{t: t, dir: dir}
}

// submit writes script as job.sh and runs its n array tasks as array job
// id with the extra environment env; it returns each task's exit code and
// whether the merge ran.
func (s *slurmSim) submit(script string, n, id int, env ...string) (codes []int, merged bool) {
	t := s.t
	job := filepath.Join(s.dir, "job-"+strconv.Itoa(id)+".sh")
	if err := os.WriteFile(job, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(s.dir, "sbatch-"+strconv.Itoa(id)+".log")
	base := append(os.Environ(), "TAILBOUND_AS_MAIN=1", "SBATCH_LOG="+log,
		"PATH="+filepath.Join(s.dir, "fakebin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"SLURM_ARRAY_JOB_ID="+strconv.Itoa(id))
	base = append(base, env...)
	ok := true
	for i := 1; i <= n; i++ {
		cmd := exec.Command("bash", job)
		cmd.Dir = s.dir
		cmd.Env = append(append([]string(nil), base...), "SLURM_ARRAY_TASK_ID="+strconv.Itoa(i))
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			ee, isExit := err.(*exec.ExitError)
			if !isExit {
				t.Fatalf("task %d: %v", i, err)
			}
			code = ee.ExitCode()
			ok = false
			t.Logf("task %d of job %d exits %d: %s", i, id, code, out)
		}
		codes = append(codes, code)
	}
	sb, err := os.ReadFile(log)
	if err != nil {
		t.Fatalf("task 1 did not submit the merge: %v", err)
	}
	args := strings.Fields(strings.TrimSpace(string(sb)))
	if strings.Count(string(sb), "\n") != 1 || !strings.Contains(string(sb), "--dependency=afterok:"+strconv.Itoa(id)+" ") ||
		!strings.Contains(string(sb), "--kill-on-invalid-dep=yes") {
		t.Errorf("sbatch calls %q, want one merge job depending on array job %d", sb, id)
	}
	if !ok {
		return codes, false
	}
	cmd := exec.Command("bash", args[len(args)-1])
	cmd.Dir = s.dir
	cmd.Env = append(base, "SLURM_JOB_ID="+strconv.Itoa(id+1))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("merge job: %v: %s", err, out)
	}
	return codes, true
}

// read returns the file at rel under the submission folder ("" if absent).
func (s *slurmSim) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(s.dir, rel))
	if err != nil {
		return ""
	}
	return string(b)
}

// TestSlurmScriptResubmission (issue 26, item 5): the printed script, run
// as Slurm runs it, merges to the unsharded output on a first submission,
// on a re-submission into the same folder with other settings, and beside
// a stale shard file of another run; a failing shard leaves no merged
// file (the old one is gone) and no merge; --out is where the merged
// output goes.
func TestSlurmScriptResubmission(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	s := newSlurmSim(t)
	script := func(args ...string) string {
		code, out, errs := runCLI(append([]string{"tables", "recompute", "--small", "--format", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
	}
	want1, want2 := script(), script("--model", "llama-3-8b")
	if want1 == want2 {
		t.Fatal("the two settings give the same output: the test would show nothing")
	}

	if _, merged := s.submit(script("--slurm", "3"), 3, 100, "OUT=res"); !merged || s.read("res/recompute.csv") != want1 {
		t.Errorf("first submission: merged %v, output equal to the unsharded run: %v", merged, s.read("res/recompute.csv") == want1)
	}
	if _, merged := s.submit(script("--model", "llama-3-8b", "--slurm", "3"), 3, 200, "OUT=res"); !merged || s.read("res/recompute.csv") != want2 {
		t.Errorf("re-submission with other settings: merged %v, output is the new run's: %v", merged, s.read("res/recompute.csv") == want2)
	}
	// A stale shard-3.json beside a 2-shard run, and in an old run's folder.
	stale := s.read("res/run-100/shard-3.json")
	for _, p := range []string{"res/shard-3.json", "res/run-200/shard-3.json"} {
		if err := os.WriteFile(filepath.Join(s.dir, p), []byte(stale), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, merged := s.submit(script("--slurm", "2"), 2, 300, "OUT=res"); !merged || s.read("res/recompute.csv") != want1 {
		t.Errorf("2 shards beside a stale shard file: merged %v, equal: %v", merged, s.read("res/recompute.csv") == want1)
	}
	// Shard 2 of 3 fails: its task exits non-zero, nothing merges, and the
	// previous merged output is gone.
	fail := filepath.Join(s.dir, "fail-2.sh")
	self, _ := os.Executable()
	wrapper := "#!/bin/bash\nfor a in \"$@\"; do [ \"$a\" = 2/3 ] && exit 3; done\nexec " + self + " \"$@\"\n"
	if err := os.WriteFile(fail, []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	codes, merged := s.submit(script("--slurm", "3"), 3, 400, "OUT=res", "TAILBOUND="+fail)
	if codes[0] != 0 || codes[1] == 0 || codes[2] != 0 || merged {
		t.Errorf("failing shard 2: task exits %v, merged %v", codes, merged)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "res/recompute.csv")); !os.IsNotExist(err) {
		t.Errorf("a merged file is left after a failed shard: %v", err)
	}
	// --out names the merged output.
	if _, merged := s.submit(script("--slurm", "2", "--out", "final dir.csv"), 2, 500, "OUT=res"); !merged || s.read("final dir.csv") != want1 {
		t.Errorf("--out: merged %v, equal: %v", merged, s.read("final dir.csv") == want1)
	}
}

// Package proctime times whole processes for the measurement scripts
// (perf-e2e, perf-speed): each command runs under /usr/bin/time -v, the
// configurations interleaved and the best of several runs kept, because
// the machines are shared and noisy.
package proctime

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Measure is one timed process.
type Measure struct {
	Wall time.Duration
	CPU  float64 // user + system, seconds
	RSS  int64   // peak resident set, KiB
	Out  []byte  // standard output
	Err  []byte  // standard error, with /usr/bin/time's report
}

var (
	wallRe = regexp.MustCompile(`Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([0-9.]+)`)
	rssRe  = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	userRe = regexp.MustCompile(`User time \(seconds\): ([0-9.]+)`)
	sysRe  = regexp.MustCompile(`System time \(seconds\): ([0-9.]+)`)
)

// Run runs args under /usr/bin/time -v in dir, killed after limit when
// limit > 0 (by timeout(1)), and returns its figures and output.
func Run(dir string, limit time.Duration, args ...string) (Measure, error) {
	if limit > 0 {
		args = append([]string{"timeout", strconv.Itoa(int(limit.Seconds()))}, args...)
	}
	c := exec.Command("/usr/bin/time", append([]string{"-v"}, args...)...)
	c.Dir = dir
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Run(); err != nil {
		return Measure{}, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, LastLines(errb.Bytes()))
	}
	w, r := wallRe.FindSubmatch(errb.Bytes()), rssRe.FindSubmatch(errb.Bytes())
	if w == nil || r == nil {
		return Measure{}, fmt.Errorf("%s: no /usr/bin/time figures in %s", args[0], LastLines(errb.Bytes()))
	}
	h, _ := strconv.Atoi(string(w[1]))
	m, _ := strconv.Atoi(string(w[2]))
	s, _ := strconv.ParseFloat(string(w[3]), 64)
	rss, _ := strconv.ParseInt(string(r[1]), 10, 64)
	cpu := 0.0
	for _, re := range []*regexp.Regexp{userRe, sysRe} {
		if m := re.FindSubmatch(errb.Bytes()); m != nil {
			v, _ := strconv.ParseFloat(string(m[1]), 64)
			cpu += v
		}
	}
	return Measure{Wall: time.Duration((float64(h*3600+m*60) + s) * float64(time.Second)), CPU: cpu, RSS: rss,
		Out: out.Bytes(), Err: errb.Bytes()}, nil
}

// Config is one command to time: its fastest run (wall time), and the
// least CPU time and peak RSS over the repeats, which on a shared machine
// need not be the fastest run's.
type Config struct {
	Name string
	Args []string
	Best Measure
	CPU  float64
	RSS  int64
}

// BestOf runs every config repeat times in dir, interleaved, keeping each
// one's best figures.
func BestOf(repeat int, dir string, cs []*Config) error {
	for i := 0; i < repeat; i++ {
		for _, c := range cs {
			m, err := Run(dir, 0, c.Args...)
			if err != nil {
				return err
			}
			if i == 0 || m.Wall < c.Best.Wall {
				c.Best = m
			}
			if i == 0 || m.CPU < c.CPU {
				c.CPU = m.CPU
			}
			if i == 0 || m.RSS < c.RSS {
				c.RSS = m.RSS
			}
		}
	}
	return nil
}

// LastLines is the last 600 bytes of b, for an error message.
func LastLines(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	return s
}

// CPUName is the processor's model name and core count, from /proc/cpuinfo.
func CPUName() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if _, v, ok := strings.Cut(l, ":"); ok {
				return strings.TrimSpace(v) + fmt.Sprintf(" (%d cores)", strings.Count(string(b), "processor\t"))
			}
		}
	}
	return "unknown CPU"
}

// Loadavg is the 1, 5 and 15-minute load averages, from /proc/loadavg.
func Loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

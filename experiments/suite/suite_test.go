package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/belady"
	"github.com/tailbound/tailbound/internal/shareddata"
	"github.com/tailbound/tailbound/lp"
	"github.com/tailbound/tailbound/lp/solvers"
	"github.com/tailbound/tailbound/mdp/exact"
	"github.com/tailbound/tailbound/models/birthdeath"
	"github.com/tailbound/tailbound/models/instance"
	"github.com/tailbound/tailbound/models/kvsize"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/policy"
	"github.com/tailbound/tailbound/models/replay"
	"github.com/tailbound/tailbound/models/tier"
	"github.com/tailbound/tailbound/models/trace"
)

// render runs s whole or in shards (merged through result-file bytes) and
// returns the output in format.
func render(t *testing.T, s *Suite, o Options, shards int, format string) string {
	t.Helper()
	var f *File
	if shards <= 1 {
		var err error
		if f, err = Run(context.Background(), s, o, Shard{1, 1}); err != nil {
			t.Fatal(err)
		}
	} else {
		var files []*File
		for i := 1; i <= shards; i++ {
			part, err := Run(context.Background(), s, o, Shard{i, shards})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := part.Write(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := ReadFile(&buf, "shard")
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, back)
		}
		var err error
		if f, err = Merge(files); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := Render(&out, s, f, format); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// tinyTrace writes a 16-turn birth–death trace and returns its path.
func tinyTrace(t *testing.T) (string, *trace.Trace) {
	t.Helper()
	p := birthdeath.Default()
	p.MaxTurns = 16
	tr, err := birthdeath.Trace(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tiny.jsonl")
	var buf bytes.Buffer
	if err := trace.WriteTrace(&buf, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, tr
}

// TestShardsMergeEqualUnsharded: shards 1/3, 2/3, 3/3 merged give the
// unsharded output byte for byte, in every format, for two suites.
func TestShardsMergeEqualUnsharded(t *testing.T) {
	path, _ := tinyTrace(t)
	cases := []struct {
		s *Suite
		o Options
	}{
		{Recompute(), Options{Seed: 1, Workers: 2}},
		{OptimalityGap(), Options{Seed: 1, Workers: 2, Params: map[string]string{"trace": path, "capacities": "512,1024", "xis": "300,600"}}},
		{TailLatency(), Options{Seed: 3, Workers: 2, Params: map[string]string{"capacity": "16384", "xis-ms": "100,200,300,400"}, Small: true}},
	}
	if d := shareddata.Dir(); d != "" {
		// block-policies with its characterize points (CDF, window and
		// summary records) on the smaller Mooncake trace.
		cases = append(cases, struct {
			s *Suite
			o Options
		}{BlockPolicies(), Options{Seed: 1, Workers: 2, Small: true, Params: map[string]string{"mooncake-dir": filepath.Join(d, "mooncake"),
			"traces": "synthetic", "blocks": "native,128", "policies": "lru,s3fifo"}}})
	}
	for _, c := range cases {
		for _, format := range []string{"table", "json", "latex", "csv"} {
			whole := render(t, c.s, c.o, 1, format)
			merged := render(t, c.s, c.o, 3, format)
			if whole != merged {
				t.Errorf("%s %s: merged shards differ from the unsharded run:\n%s\n----\n%s", c.s.Name, format, whole, merged)
			}
			if again := render(t, c.s, c.o, 1, format); again != whole {
				t.Errorf("%s %s: rerun with the same seed differs", c.s.Name, format)
			}
		}
	}
}

// TestMergeRejects: a missing shard, a shard twice and mixed options are
// errors.
func TestMergeRejects(t *testing.T) {
	s := Recompute()
	o := Options{Seed: 1}
	a, _ := Run(context.Background(), s, o, Shard{1, 2})
	b, _ := Run(context.Background(), s, o, Shard{2, 2})
	o2 := Options{Seed: 2}
	c, _ := Run(context.Background(), s, o2, Shard{2, 2})
	for name, files := range map[string][]*File{"missing": {a}, "twice": {a, a, b}, "options": {a, c}} {
		if _, err := Merge(files); err == nil {
			t.Errorf("%s: merge succeeded", name)
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, s, a, "table"); err == nil {
		t.Errorf("rendering one shard succeeded")
	}
}

// TestOptimalityGapAgainstSolveAndReplay checks the suite's rows on a
// 16-turn trace: the optimum against the compact IP solved by gonum's
// branch and bound (not the flow solver the suite uses), policy TELs
// against the replay engine run directly.
func TestOptimalityGapAgainstSolveAndReplay(t *testing.T) {
	path, tr := tinyTrace(t)
	f, err := Run(context.Background(), OptimalityGap(), Options{Seed: 1, Workers: 2,
		Params: map[string]string{"trace": path, "capacities": "512,1024", "xis": "300", "policies": "lru,tlru,to-belady", "tail-bounds": "none"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	factories := map[string]policy.Factory{"lru": policy.NewLRU, "tlru": policy.NewTLRU, "to-belady": belady.NewTailOptimized}
	for _, r := range f.Records {
		p := f.Grid[r.Point]
		c, _ := strconv.ParseInt(p["capacity"], 10, 64)
		xi, _ := strconv.ParseFloat(p["xi"], 64)
		var want float64
		if r.Key == optimumKey {
			in, err := lp.NewInstance(tr, instance.Params{Capacity: c, BlockSize: 16, Xi: xi})
			if err != nil {
				t.Fatal(err)
			}
			res, err := solvers.Solve(context.Background(), in, lp.Compact, "gonum", false, lp.Options{})
			if err != nil || res.Status != lp.Optimal {
				t.Fatalf("gonum: %v %v", err, res)
			}
			want = res.TEL
		} else {
			pol, err := factories[r.Key](policy.Config{Params: instance.Params{Capacity: c, BlockSize: 16, Xi: xi},
				Threshold: policy.DefaultThreshold, Future: trace.NewHindsight(tr.Turns, tr.Conversations())})
			if err != nil {
				t.Fatal(err)
			}
			out, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: r.Key, Policy: pol}},
				replay.Options{Params: instance.Params{Capacity: c, BlockSize: 16, Xi: xi}, Model: latency.Default(), SLOMs: latency.DefaultSLOMs})
			if err != nil {
				t.Fatal(err)
			}
			want = out[0].Summary.TELTokens
		}
		if got := r.V("tel_tokens"); math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Errorf("C=%d ξ=%g %s: suite TEL %g, separate path %g", c, xi, r.Key, got, want)
		}
	}
}

// TestTailLatencyAgainstReplay checks the Figure 5 rows of a small run
// against the replay engine run directly, and that the Table 1 cells are
// (LRU − T-LRU)/LRU of those numbers.
func TestTailLatencyAgainstReplay(t *testing.T) {
	path, tr := tinyTrace(t)
	f, err := Run(context.Background(), TailLatency(), Options{Seed: 1, Workers: 2,
		Params: map[string]string{"trace": path, "capacity": "512", "xis-ms": "40"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	m := latency.Default()
	p99 := map[string]float64{}
	for _, name := range []string{"lru", "tlru"} {
		fac := map[string]policy.Factory{"lru": policy.NewLRU, "tlru": policy.NewTLRU}[name]
		pol, err := fac(policy.Config{Params: instance.Params{Capacity: 512, BlockSize: 16, Xi: m.XiTokens(40)}, Threshold: policy.DefaultThreshold})
		if err != nil {
			t.Fatal(err)
		}
		out, err := replay.Replay(replay.SliceSource(tr.Turns), []replay.Named{{Name: name, Policy: pol}},
			replay.Options{Params: instance.Params{Capacity: 512, BlockSize: 16, Xi: m.XiTokens(40)}, Model: m, SLOMs: 200})
		if err != nil {
			t.Fatal(err)
		}
		p99[name] = out[0].Summary.P99
		for _, r := range f.Records {
			if r.Key == name && (r.V("p99") != out[0].Summary.P99 || r.V("tel_ms") != out[0].Summary.TELMs) {
				t.Errorf("%s: suite P99 %g TEL %g ms, replay %g %g", name, r.V("p99"), r.V("tel_ms"), out[0].Summary.P99, out[0].Summary.TELMs)
			}
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, TailLatency(), f, "csv"); err != nil {
		t.Fatal(err)
	}
	// The table shows the improvement as a percentage to 0.1; CSV writes
	// that figure as a fraction, in long form (table, row, column, value).
	pct, _ := strconv.ParseFloat(strconv.FormatFloat(100*(p99["lru"]-p99["tlru"])/p99["lru"], 'f', 1, 64), 64)
	want := ",1,P99 (fraction)," + strconv.FormatFloat(pct/100, 'g', -1, 64)
	found := false
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.HasPrefix(l, `"Table 1:`) && strings.HasSuffix(l, want) {
			found = true
		}
	}
	if !found {
		t.Errorf("no Table 1 line ends in %q:\n%s", want, buf.String())
	}
}

// TestBirthDeathSmall runs the reduced suite: its exact-MDP optimum
// equals the brute force over every decision sequence (a second solver)
// and no policy beats it; every Monte Carlo interval has a finite
// non-negative half-width and the reference's gap to itself is 0. The
// Monte Carlo table writes its first row's TEL (10³ tokens) and
// half-width to CSV as the record's, unrounded.
func TestBirthDeathSmall(t *testing.T) {
	f, err := Run(context.Background(), BirthDeath(), Options{Seed: 1, Small: true, Workers: 2,
		Params: map[string]string{"duration": "60"}}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Layout(BirthDeath(), f)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Records {
		if f.Grid[r.Point]["kind"] == "exact" {
			continue
		}
		mc := out.Tables[0]
		m, err1 := strconv.ParseFloat(mc.Plain[0][2], 64)
		h, err2 := strconv.ParseFloat(mc.Half[0][2], 64)
		if err1 != nil || err2 != nil || m != r.V("tel")/1000 || h != r.V("tel_half")/1000 {
			t.Errorf("CSV TEL %q ± %q, record %v ± %v (10³ tokens)", mc.Plain[0][2], mc.Half[0][2], r.V("tel")/1000, r.V("tel_half")/1000)
		}
		break
	}
	bf := map[string]float64{}
	for _, w := range []exact.World{exact.Paper, exact.Bayes} {
		in := exact.Default(2, w)
		in.Horizon = 5
		v, err := exact.BruteForce(in)
		if err != nil {
			t.Fatal(err)
		}
		bf[w.String()] = v
	}
	for _, r := range f.Records {
		p := f.Grid[r.Point]
		if p["kind"] == "exact" {
			want := bf[p["world"]]
			if r.Key == "optimum" && math.Abs(r.V("value")-want) > 1e-9*math.Max(1, want) {
				t.Errorf("%s: optimum %g, brute force %g", p["world"], r.V("value"), want)
			}
			if r.V("value") < want-1e-9 {
				t.Errorf("%s: %s %g beats the brute-force optimum %g", p["world"], r.Key, r.V("value"), want)
			}
			continue
		}
		if h := r.V("tel_half"); !(h >= 0) || math.IsInf(h, 0) {
			t.Errorf("%s: half-width %g", r.Key, h)
		}
		if r.Key == "to-belady" && r.V("gap") != 0 {
			t.Errorf("to-belady gap to itself %g", r.V("gap"))
		}
	}
}

// TestRecomputeClosedForm: r0 is t_i/(t_c + t_i) clipped, from the
// hardware profile computed here, and no grid r beats the exact minimizer;
// the table shows r0 with 4 decimals and CSV writes it unrounded.
func TestRecomputeClosedForm(t *testing.T) {
	f, err := Run(context.Background(), Recompute(), Options{Small: true}, Shard{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Layout(Recompute(), f)
	if err != nil {
		t.Fatal(err)
	}
	roof := out.Tables[0]
	shown, plain := map[string]string{}, map[string]string{}
	for i, row := range roof.Plain {
		shown[row[0]+"@"+row[1]], plain[row[0]+"@"+row[1]] = roof.Rows[i][3], row[3]
	}
	cfg, _ := kvsize.Preset("mistral-7b")
	d, _ := tier.LookupDevice("a100")
	flops, _ := d.Effective(0.5)
	for _, r := range f.Records {
		p := f.Grid[r.Point]
		if p["kind"] != "roofline" {
			continue
		}
		tr, _ := tier.Lookup(p["tier"])
		n, _ := strconv.Atoi(p["tokens"])
		// t_c: 2·params FLOPs per token over the layers; t_i: KV bytes of a
		// token's layer over the bandwidth.
		prof, err := recomputeProfile(cfg, tr, flops, n)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Min(math.Max(prof.Ti/(prof.Tc+prof.Ti), 0.15), 1)
		if got := r.V("r0"); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s %d: r0 %g, want %g", p["tier"], n, got, want)
		}
		key := p["tier"] + "@" + p["tokens"]
		if got, err := strconv.ParseFloat(plain[key], 64); err != nil || math.Abs(got-want) > 1e-12 || shown[key] != strconv.FormatFloat(want, 'f', 4, 64) {
			t.Errorf("%s: r0 shown %q, in CSV %q; want %v", key, shown[key], plain[key], want)
		}
		if r.V("ttft_exact_ms") > r.V("ttft_r0_ms")+1e-9 || r.V("ttft_exact_ms") > r.V("ttft_r_star_ms")+1e-9 {
			t.Errorf("%s %d: exact minimizer above r0 or r*", p["tier"], n)
		}
	}
}

func TestNumRoundTrip(t *testing.T) {
	for _, v := range []float64{0, 1.0 / 3, -2.5e-300, math.NaN(), math.Inf(1), math.Inf(-1), 123456789.123} {
		b, err := json.Marshal(Num(v))
		if err != nil {
			t.Fatal(err)
		}
		var back Num
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !(float64(back) == v || math.IsNaN(v) && math.IsNaN(float64(back))) {
			t.Errorf("%v → %s → %v", v, b, back)
		}
	}
}

// recomputeProfile is the roofline profile from its closed form (the
// formula of recompute.HardwareProfile's documentation, written here).
func recomputeProfile(cfg kvsize.Config, t tier.Tier, flops float64, n int) (struct{ Tc, Ti float64 }, error) {
	var p struct{ Tc, Ti float64 }
	kvPerLayer := 2 * float64(cfg.KVHeads*cfg.HeadDim) * cfg.BytesPerValue
	p.Ti = kvPerLayer / t.Bandwidth
	p.Tc = (2*cfg.Params/float64(cfg.Layers) + 2*float64(cfg.Heads*cfg.HeadDim)*float64(n+1)) / flops
	return p, nil
}

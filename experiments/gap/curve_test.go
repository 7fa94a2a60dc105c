package gap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tailbound/tailbound/experiments/policies"
	"github.com/tailbound/tailbound/models/latency"
	"github.com/tailbound/tailbound/models/trace"
)

// TestRunWarmStart: a sweep with the optimum solved as warm-started
// capacity curves gives the same rows, field for field, as one with every
// point solved on its own, on random traces with capacities unsorted,
// repeated and zero, two ξ (one fractional), optional and forced caching.
func TestRunWarmStart(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	es, err := policies.Parse("lru,tlru")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		tr := &trace.Trace{}
		convs := 2 + r.IntN(8)
		for k := 0; k < 50+r.IntN(300); k++ {
			tr.Append(float64(k), fmt.Sprint("c", r.IntN(convs)), 1+r.Int64N(80), r.Int64N(80))
		}
		b := []int64{1, 4, 16}[r.IntN(3)]
		cfg := Config{Block: b, Forced: i%2 == 1, Xis: []float64{30, 7.5}, Policies: es, Model: latency.Default(), Workers: 2,
			Capacities: []int64{b * (1 + r.Int64N(60)), 0, b * r.Int64N(20), b * (1 + r.Int64N(60)), b * 7}}
		cfg.Capacities = append(cfg.Capacities, cfg.Capacities[0])
		cold, err := Run(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.WarmStart = true
		warm, err := Run(context.Background(), tr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cold, warm) {
			t.Fatalf("case %d (B=%d, forced %v, C %v): rows differ\ncold %+v\nwarm %+v", i, b, cfg.Forced, cfg.Capacities, cold, warm)
		}
	}
	cfg := Config{Block: 16, Xis: []float64{30}, Capacities: []int64{64}, Solver: "gonum", WarmStart: true}
	if _, err := Run(context.Background(), &trace.Trace{}, cfg); err == nil {
		t.Fatal("warm start with solver gonum accepted")
	}
}

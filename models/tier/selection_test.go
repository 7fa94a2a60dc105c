package tier

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tailbound/tailbound/internal/option"
)

// The achieved FLOP/s is the peak times the utilisation: an A100's 312
// TFLOP/s at 0.5 is 156e12, a given --tflops 100 at 0.4 is 40e12; a
// --tflops value that was not given is ignored.
func TestSelectionResolve(t *testing.T) {
	tflops := func(f string) bool { return f == "tflops" }
	for _, c := range []struct {
		s       Selection
		changed func(string) bool
		names   []string
		bw      []float64 // bytes/s
		flops   float64
	}{
		{Selection{Tiers: "nvme,hdd", GPU: "a100", MFU: 0.5}, nil, []string{"nvme", "hdd"}, []float64{3e9, 200e6}, 156e12},
		{Selection{Tiers: "nvme", Bandwidth: []string{"nvme=2"}, GPU: "A100", TFLOPS: 100, MFU: 0.4}, tflops, []string{"nvme"}, []float64{2e9}, 40e12},
		{Selection{Tiers: "cxl, nvme", Bandwidth: []string{"cxl=64", "nvme=7"}, GPU: "h100", TFLOPS: 100, MFU: 1}, nil, []string{"cxl", "nvme"}, []float64{64e9, 7e9}, 989e12},
	} {
		ts, flops, err := c.s.Resolve(c.changed)
		if err != nil {
			t.Errorf("%+v: %v", c.s, err)
			continue
		}
		var names []string
		var bw []float64
		for _, tr := range ts {
			names, bw = append(names, tr.Name), append(bw, tr.Bandwidth)
		}
		if !slices.Equal(names, c.names) || !slices.Equal(bw, c.bw) || flops != c.flops {
			t.Errorf("%+v: tiers %v at %v B/s, %v FLOP/s; want %v at %v, %v", c.s, names, bw, flops, c.names, c.bw, c.flops)
		}
	}
}

// Each error names the flag at fault; utilisation and peak keep the
// combined text.
func TestSelectionErrors(t *testing.T) {
	ok := Selection{Tiers: "nvme", GPU: "a100", MFU: 0.5}
	for _, c := range []struct {
		edit func(*Selection)
		flag string
	}{
		{func(s *Selection) { s.Bandwidth = []string{"nvme"} }, "bandwidth"},
		{func(s *Selection) { s.Tiers = "nvme,floppy" }, "tiers"},
		{func(s *Selection) { s.Bandwidth = []string{"hdd=1"} }, "tiers"},
		{func(s *Selection) { s.GPU = "tpu" }, "gpu"},
	} {
		s := ok
		c.edit(&s)
		var oe *option.Error
		if _, _, err := s.Resolve(nil); !errors.As(err, &oe) || !slices.Equal(oe.Flags, []string{c.flag}) {
			t.Errorf("%+v: %v, want an error naming --%s", s, err, c.flag)
		}
	}
	for _, s := range []Selection{{Tiers: "nvme", GPU: "a100", MFU: 2}, {Tiers: "nvme", GPU: "a100", MFU: 0.5, TFLOPS: 0}} {
		changed := func(f string) bool { return f == "tflops" }
		if _, _, err := s.Resolve(changed); err == nil || !strings.HasPrefix(err.Error(), "flags --gpu/--tflops/--mfu: ") {
			t.Errorf("%+v: %v, want the --gpu/--tflops/--mfu error", s, err)
		}
	}
}

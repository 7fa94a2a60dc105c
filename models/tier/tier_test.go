package tier

import (
	"math"
	"strings"
	"testing"
)

func TestPresetsValid(t *testing.T) {
	prev := math.Inf(1)
	for _, tr := range Presets() {
		if err := tr.Validate(); err != nil {
			t.Error(err)
		}
		if tr.Bandwidth > prev {
			t.Errorf("%s: presets must be listed fastest first", tr.Name)
		}
		prev = tr.Bandwidth
	}
	// 1 GiB of KV from the HDD preset at 200 MB/s: 2^30 / 2e8 s.
	h, _ := Lookup("HDD")
	if got, want := h.Seconds(1<<30), float64(1<<30)/2e8; got != want {
		t.Errorf("hdd 1 GiB: %v s, want %v", got, want)
	}
}

func TestResolveOverrides(t *testing.T) {
	cases := []struct {
		names, over []string
		want        []float64 // bytes/s
		err         string
	}{
		{[]string{"nvme", "hdd"}, nil, []float64{3e9, 200e6}, ""},
		{[]string{"nvme", "hdd"}, []string{"nvme=7,hdd=0.15"}, []float64{7e9, 150e6}, ""},
		{[]string{"cxl"}, []string{"cxl=64"}, []float64{64e9}, ""},
		{[]string{"cxl"}, nil, nil, "unknown storage tier"},
		{[]string{"nvme"}, []string{"nvmee=7"}, nil, "not selected"},
		{[]string{"nvme"}, []string{"nvme=-1"}, nil, "GB/s > 0"},
		{[]string{"nvme"}, []string{"nvme"}, nil, "name=GB/s"},
		{[]string{""}, nil, nil, "no storage tier"},
	}
	for _, c := range cases {
		ov, err := ParseOverrides(c.over)
		var got []Tier
		if err == nil {
			got, err = Resolve(c.names, ov)
		}
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %v: error %v, want %q", c.names, c.over, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v %v: %v", c.names, c.over, err)
			continue
		}
		for i, w := range c.want {
			if math.Abs(got[i].Bandwidth-w) > 1e-6*w {
				t.Errorf("%v %v: tier %d bandwidth %v, want %v", c.names, c.over, i, got[i].Bandwidth, w)
			}
		}
	}
}

func TestDeviceEffective(t *testing.T) {
	d, err := LookupDevice("A100")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := d.Effective(DefaultMFU); f != 156e12 {
		t.Errorf("A100 at 50%%: %v FLOP/s, want 156e12", f)
	}
	for _, bad := range []float64{0, -0.1, 1.5, math.NaN()} {
		if _, err := d.Effective(bad); err == nil {
			t.Errorf("mfu %v accepted", bad)
		}
	}
	if _, err := LookupDevice("tpu"); err == nil {
		t.Error("unknown device accepted")
	}
}

// Package tier holds the hardware a KV-cache reuse decision depends on: the
// storage tiers a cache can be loaded from, with their read bandwidths, and
// the accelerators that recompute it, with their FLOP rates. All presets
// are round published figures and can be overridden.
package tier

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Tier is a place a KV cache is loaded from.
type Tier struct {
	// Name identifies the tier, e.g. "nvme".
	Name string `json:"name"`
	// Bandwidth is the sustained read bandwidth into GPU memory, bytes/s.
	Bandwidth float64 `json:"bandwidth_bytes_per_s"`
	// Note says where the figure comes from.
	Note string `json:"note"`
}

// Validate reports a tier whose bandwidth is not a finite positive number.
func (t Tier) Validate() error {
	if !(t.Bandwidth > 0) || math.IsInf(t.Bandwidth, 0) {
		return fmt.Errorf("tier %s: bandwidth must be a finite number > 0 bytes/s, got %v", t.Name, t.Bandwidth)
	}
	return nil
}

// Seconds is the time to read bytes bytes from the tier, seconds.
func (t Tier) Seconds(bytes float64) float64 { return bytes / t.Bandwidth }

// presets, fastest first. The storage figures are the compute-and-load
// paper's (§3: SATA SSD ≈ 600 MB/s, HDD ≈ 200 MB/s, high-end NVMe up to
// 3 GB/s, its fastest emulated network 10 Gbps).
func presets() []Tier {
	return []Tier{
		{"gpu", 2.0e12, "KV already in GPU memory: A100-80GB HBM2e, 2.0 TB/s"},
		{"cpu", 25e9, "CPU memory over PCIe 4.0 x16: 32 GB/s nominal, ~25 GB/s sustained"},
		{"nvme", 3e9, "high-end NVMe SSD, 3 GB/s (compute-and-load paper §3)"},
		{"network", 1.25e9, "remote store over 10 Gbps (the paper's fastest emulated link)"},
		{"sata", 600e6, "SATA SSD, 600 MB/s (compute-and-load paper §3)"},
		{"hdd", 200e6, "hard disk, 200 MB/s (compute-and-load paper §3)"},
	}
}

// Presets returns the storage-tier presets, fastest first.
func Presets() []Tier { return presets() }

// Names returns the preset names, fastest first, comma-separated.
func Names() string {
	var n []string
	for _, t := range presets() {
		n = append(n, t.Name)
	}
	return strings.Join(n, ",")
}

// Lookup returns the named preset (case-insensitive).
func Lookup(name string) (Tier, error) {
	for _, t := range presets() {
		if strings.EqualFold(t.Name, name) {
			return t, nil
		}
	}
	return Tier{}, fmt.Errorf("unknown storage tier %q (presets: %s)", name, Names())
}

// ParseOverrides reads "name=GB/s" items (GB = 10⁹ bytes), e.g.
// "nvme=7,hdd=0.15", into bandwidths in bytes/s by tier name. A name that is
// not a preset defines a new tier.
func ParseOverrides(items []string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, it := range items {
		for _, kv := range strings.Split(it, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" {
				return nil, fmt.Errorf("bandwidth override %q: want name=GB/s", kv)
			}
			g, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(g > 0) || math.IsInf(g, 0) {
				return nil, fmt.Errorf("bandwidth override %q: want a finite number of GB/s > 0", kv)
			}
			out[k] = g * 1e9
		}
	}
	return out, nil
}

// Resolve returns the named tiers, in the order given, with bandwidths
// replaced by overrides (bytes/s by lower-case name). A name that is not a
// preset must have an override.
func Resolve(names []string, overrides map[string]float64) ([]Tier, error) {
	var out []Tier
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		t, err := Lookup(n)
		if bw, ok := overrides[n]; ok {
			if err != nil {
				t = Tier{Name: n, Note: "user-defined"}
			}
			t.Bandwidth, t.Note = bw, "overridden: "+strconv.FormatFloat(bw/1e9, 'g', -1, 64)+" GB/s"
		} else if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no storage tier given (presets: %s)", Names())
	}
	for _, k := range sortedKeys(overrides) {
		found := false
		for _, t := range out {
			found = found || t.Name == k
		}
		if !found {
			return nil, fmt.Errorf("bandwidth override %q names a tier that is not selected (%s)", k, strings.Join(names, ","))
		}
	}
	return out, nil
}

// sortedKeys returns the keys of m in order, for deterministic messages.
func sortedKeys(m map[string]float64) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

package tier

import (
	"fmt"
	"math"
	"strings"
)

// Device is an accelerator that recomputes KV caches.
type Device struct {
	// Name identifies the device, e.g. "a100".
	Name string `json:"name"`
	// PeakFLOPS is the dense fp16/bf16 tensor-core peak, FLOP/s.
	PeakFLOPS float64 `json:"peak_flops"`
	// Note says where the figure comes from.
	Note string `json:"note"`
}

// DefaultMFU is the default model-FLOPs utilisation of prefill (fraction of
// peak actually achieved). With it, an A100 prefills 10,000 tokens of a 7B
// model in about one second, the compute-and-load paper's §2.3 figure.
const DefaultMFU = 0.5

func devices() []Device {
	return []Device{
		{"a100", 312e12, "NVIDIA A100 SXM, 312 TFLOP/s dense bf16"},
		{"h100", 989e12, "NVIDIA H100 SXM, 989 TFLOP/s dense bf16"},
	}
}

// Devices returns the accelerator presets.
func Devices() []Device { return devices() }

// LookupDevice returns the named accelerator preset (case-insensitive).
func LookupDevice(name string) (Device, error) {
	var names []string
	for _, d := range devices() {
		if strings.EqualFold(d.Name, name) {
			return d, nil
		}
		names = append(names, d.Name)
	}
	return Device{}, fmt.Errorf("unknown device %q (presets: %s)", name, strings.Join(names, ","))
}

// Effective returns the achieved FLOP rate at utilisation mfu ∈ (0, 1].
func (d Device) Effective(mfu float64) (float64, error) {
	if !(mfu > 0 && mfu <= 1) {
		return 0, fmt.Errorf("utilisation must be in (0, 1], got %v", mfu)
	}
	if !(d.PeakFLOPS > 0) || math.IsInf(d.PeakFLOPS, 0) {
		return 0, fmt.Errorf("device %s: peak must be a finite number > 0 FLOP/s, got %v", d.Name, d.PeakFLOPS)
	}
	return d.PeakFLOPS * mfu, nil
}

//go:build !amd64

package prefetch

import "unsafe"

// Line does nothing on this architecture (see the amd64 version).
func Line(unsafe.Pointer) {}

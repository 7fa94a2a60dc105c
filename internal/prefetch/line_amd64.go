package prefetch

import "unsafe"

// Line asks the processor to bring the cache line holding p into its
// caches (PREFETCHT0) and returns at once. It changes nothing the program
// computes: a prefetch is a hint, and does not fault on any address.
//
//go:noescape
func Line(p unsafe.Pointer)

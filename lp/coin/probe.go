//go:build coin

package coin

/*
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

static uintptr_t coin_sigint_handler(void) {
	struct sigaction sa;
	if (sigaction(SIGINT, NULL, &sa) != 0) {
		return 0;
	}
	return (uintptr_t)sa.sa_sigaction;
}
*/
import "C"

// This file holds probes of the C side of the process that the tests use
// to check that the libraries leave no trace (cgo is not allowed in test
// files).

// flushCStdio flushes every C stdio output buffer, so that a test that
// captures file descriptors 1 and 2 sees all the C code wrote.
func flushCStdio() { C.fflush(nil) }

// sigintHandler returns the address of the process's current SIGINT
// handler.
func sigintHandler() uintptr { return uintptr(C.coin_sigint_handler()) }

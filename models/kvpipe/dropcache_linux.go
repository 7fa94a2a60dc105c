//go:build linux

package kvpipe

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// dropCache asks the kernel to drop f's clean pages from the page cache
// (the file was synced when written), so that the next read goes to the
// device.
func dropCache(f *os.File) error {
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("kvpipe: posix_fadvise(DONTNEED): %w", err)
	}
	return nil
}

// DiskSupported reports whether the Disk tier can defeat the page cache
// on this system.
const DiskSupported = true

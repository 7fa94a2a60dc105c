//go:build !linux

package kvpipe

import (
	"errors"
	"os"
)

func dropCache(*os.File) error {
	return errors.New("kvpipe: the disk tier needs posix_fadvise, which is Linux-only here")
}

// DiskSupported reports whether the Disk tier can defeat the page cache
// on this system.
const DiskSupported = false

//go:build unix

package fsx

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f.
func mapFile(f *os.File, size int) ([]byte, func() error, error) {
	data, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map %s: %w", f.Name(), err)
	}
	return data, func() error { return unix.Munmap(data) }, nil
}

// evict drops the pages of mapped data from the process's memory.
func evict(data []byte) {
	if len(data) > 0 {
		unix.Madvise(data, unix.MADV_DONTNEED)
	}
}

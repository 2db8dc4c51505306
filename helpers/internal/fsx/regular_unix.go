//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// openNonblock opens path with O_NONBLOCK, so that opening a FIFO returns
// at once (for reading) or fails (for writing, with no reader).
func openNonblock(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
}

// setBlocking clears O_NONBLOCK from a regular file (where it means
// nothing, but nothing cairn passes the file to should see it).
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}

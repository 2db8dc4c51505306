package fsx

import (
	"os"

	"golang.org/x/sys/unix"
)

// StartWriteback asks the kernel to start writing bytes [off, off+n) of f
// to disk now, without waiting: a writer that fsyncs a big file at its
// end, and calls this as it writes, finds most of it written by then.
// Errors are ignored: the fsync that follows reports what matters.
func StartWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

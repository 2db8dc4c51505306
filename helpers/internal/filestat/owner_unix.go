//go:build unix

package filestat

import (
	"io/fs"
	"os"
	"syscall"
)

// Owned reports whether the file at path, which os.Lstat described as fi,
// belongs to the user running this process (fsx.Owned, on Unix): it
// compares owner and user ids, true when fi carries none.
func Owned(_ string, fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}

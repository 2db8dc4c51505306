//go:build windows

package fsx

import "os"

// openNonblock opens path: Windows keeps no FIFOs in its file system
// (named pipes live under \\.\pipe\), so an open does not block on one.
func openNonblock(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// setBlocking does nothing on Windows.
func setBlocking(*os.File) error { return nil }

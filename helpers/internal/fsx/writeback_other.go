//go:build !linux

package fsx

import "os"

// StartWriteback does nothing where the system offers no way to start a
// file's writeback early (see the Linux version).
func StartWriteback(f *os.File, off, n int64) {}

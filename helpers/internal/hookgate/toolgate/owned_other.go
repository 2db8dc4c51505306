//go:build !unix

package toolgate

import "io/fs"

// owned is false where fsx.Owned needs more than the standard library
// (Windows): the gate leaves the write to the full hook.
func owned(string, fs.FileInfo) bool { return false }

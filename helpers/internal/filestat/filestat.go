// Package filestat is what cairn reads of a file's stat without opening
// it: its identity ([FileID]) and whether the person running cairn owns
// it ([Owned], on Unix; fsx.Owned is the portable one, whose Windows half
// needs golang.org/x/sys, which only fsx imports). It imports only the
// standard library's io/fs, os and syscall, so that the hook before a tool call
// can compare the anchor map's identity and find the project before the
// program's later packages initialise (see package hookgate/toolgate);
// package fsx keeps the confined reads and writes and uses these.
package filestat

import "io/fs"

// FileID identifies one version of a file without reading it: size,
// modification and change times (nanoseconds) and inode (on Windows, the
// file index). Any write, rename over or touch of the file changes it;
// equal IDs mean the file is unchanged.
type FileID struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
	Ctime int64  `json:"ctime"`
	Ino   uint64 `json:"ino"`
}

// Of is the identity of the file os.Lstat or os.Stat described as fi,
// read from its stat; ok is false where fi carries no stat this package
// reads (Windows, whose file index fsx reads from an open handle, and the
// systems other than Linux and macOS).
func Of(fi fs.FileInfo) (id FileID, ok bool) { return of(fi) }

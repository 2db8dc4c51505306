// Package filestat is what cairn reads of a file's stat without opening
// it: its identity ([FileID]) and whether the person running cairn owns
// it ([Owned]). It is a leaf of the standard library (os, io/fs, syscall;
// golang.org/x/sys/windows on Windows) so that the hook before a tool call
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

// Owned reports whether the file at path, which os.Lstat described as fi,
// belongs to the user running this process: a directory that someone else
// made in a shared place (/tmp, C:\) is not one to trust. On Unix it
// compares owner and user ids (true when fi carries none); on Windows the
// owner's SID with the process user's, an owner that is the Administrators
// group counting when this process is a member (what an elevated process
// creates belongs to the group).
func Owned(path string, fi fs.FileInfo) bool { return owned(path, fi) }

//go:build !linux && !darwin

package filestat

import "io/fs"

func of(fs.FileInfo) (FileID, bool) { return FileID{}, false }

//go:build unix

package toolgate

import (
	"io/fs"

	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

// owned is fsx.Owned (filestat holds its Unix half, without fsx's imports).
func owned(p string, fi fs.FileInfo) bool { return filestat.Owned(p, fi) }

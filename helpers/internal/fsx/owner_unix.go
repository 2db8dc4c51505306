//go:build unix

package fsx

import (
	"io/fs"

	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

func owned(path string, fi fs.FileInfo) bool { return filestat.Owned(path, fi) }

package projroot

import (
	"io/fs"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// owned is fsx.Owned.
func owned(p string, fi fs.FileInfo) bool { return fsx.Owned(p, fi) }

// The path functions of the rule: path/filepath's (volumes, backslashes).

func join(elem ...string) string { return filepath.Join(elem...) }

func parentDir(p string) string { return filepath.Dir(p) }

func isAbs(p string) bool { return filepath.IsAbs(p) }

func clean(p string) string { return filepath.Clean(p) }

// absolute is p made absolute against the working directory, cleaned.
func absolute(p string) (string, error) { return filepath.Abs(p) }

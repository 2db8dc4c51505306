//go:build unix

package projroot

import (
	"io/fs"
	"os"
	"path"

	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

// owned is fsx.Owned (filestat holds its Unix half, without fsx's imports).
func owned(p string, fi fs.FileInfo) bool { return filestat.Owned(p, fi) }

// The path functions of the rule: package path's, which are
// path/filepath's where the separator is a slash (path/filepath itself
// would make the hooks' fast paths wait: see the package's comment).

func join(elem ...string) string { return path.Join(elem...) }

func parentDir(p string) string { return path.Dir(p) }

func isAbs(p string) bool { return path.IsAbs(p) }

func clean(p string) string { return path.Clean(p) }

// absolute is p made absolute against the working directory, cleaned
// (filepath.Abs).
func absolute(p string) (string, error) {
	if isAbs(p) {
		return clean(p), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return join(wd, p), nil
}

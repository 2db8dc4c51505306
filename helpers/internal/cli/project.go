package cli

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/project"
	ucli "github.com/urfave/cli/v2"
)

// findProject resolves the project of a command: --dir or CAIRN_DIR when
// given, else the git repository of the working directory, else the
// nearest directory above it that holds a .cairn.
func findProject(c *ucli.Context, env Env) (*project.Project, error) {
	return project.Find(env.Dir, c.String("dir"))
}

// errCache marks a failure of the cache, whose fix is to rebuild it.
var errCache = errors.New("cache")

// cacheError marks err as the cache's when it is.
func cacheError(err error) error {
	if err == nil || errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), "cache") {
		return err
	}
	return &wrapped{err, errCache}
}

// wrapped is err that also is mark, for errors.Is.
type wrapped struct{ err, mark error }

func (w *wrapped) Error() string   { return w.err.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.err, w.mark} }

package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// findProject resolves the project of a command: --dir or CAIRN_DIR when
// given, else the git repository of the working directory, else the
// nearest directory above it that holds a .cairn.
func findProject(c *ucli.Context, env Env) (*project.Project, error) {
	return project.Find(env.Dir, c.String("dir"))
}

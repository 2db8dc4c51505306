package cli

import (
	"fmt"
	"runtime"

	ucli "github.com/urfave/cli/v2"
)

func versionCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print cairn's version",
		Action: func(c *ucli.Context) error {
			fmt.Fprintf(env.Stdout, "cairn %s (%s %s/%s)\n", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}

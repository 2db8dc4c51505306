package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/doctor"
)

func doctorCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "doctor",
		Usage: "check what is installed, wired and in sync, and say what to fix",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print the checks as JSON"},
		},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			checks := doctor.Run(p, adapters, env.Getenv)
			for i := range checks {
				checks[i].Detail, checks[i].Fix = clean(checks[i].Detail), clean(checks[i].Fix)
			}
			failed := doctor.Failed(checks)
			if c.Bool("json") {
				if err := writeJSON(env.Stdout, map[string]any{"version": Version, "root": clean(p.Root), "checks": checks, "ok": failed == 0}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(env.Stdout, "cairn %s in %s\n", Version, p.Root)
				doctor.Write(env.Stdout, checks)
			}
			if failed > 0 {
				return fmt.Errorf("doctor found %d problem(s) to fix", failed)
			}
			return nil
		},
	}
}

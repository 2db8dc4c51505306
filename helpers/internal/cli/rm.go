package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
)

func rmCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "rm",
		Usage:     "remove an entry no commit holds yet (a committed one: retract or edit it)",
		ArgsUsage: "KEY",
		Description: "Takes every line of KEY out of .cairn/knowledge.jsonl, keeping every other line\n" +
			"as it is and where it is, under the writers' lock. Only an entry whose lines are\n" +
			"in the working tree and not in HEAD's log: what a commit holds, teammates may\n" +
			"have; it is taken back with cairn retract KEY --reason TEXT, or corrected with\n" +
			"cairn edit KEY --content TEXT (a superseding entry).",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print what was removed as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("rm needs one KEY, e.g. cairn rm learned-foo-1a2b3c (keys: cairn recall --json)")
			}
			key := c.Args().First()
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			n, err := curate.Remove(p, key)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, map[string]any{"removed": key, "lines": n})
			}
			fmt.Fprintf(env.Stdout, "removed %s (%d line(s))\n", key, n)
			return nil
		},
	}
}

package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
)

func showCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "show",
		Usage:     "print one entry whole: provenance, history, committed or not, this machine's verdicts",
		ArgsUsage: "KEY",
		Description: "Prints the entry's latest line field by field; its history (every line of the\n" +
			"key in the log and the archive: statuses, supersessions, retractions, with who and\n" +
			"when); whether HEAD's log holds it (committed) or only the working tree does; what\n" +
			"this machine's last sanitize said of it (duplicate, noise, stale anchor, and why);\n" +
			"and when it was last put in front of an agent here. Find keys with cairn recall.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print it as one JSON object"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("show needs one KEY, e.g. cairn show learned-foo-1a2b3c (keys: cairn recall --json)")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.RequireStore(); err != nil {
				return err
			}
			sh, err := curate.Show(p, c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, curate.ShowJSON(sh))
			}
			curate.WriteShown(env.Stdout, sh)
			return nil
		},
	}
}

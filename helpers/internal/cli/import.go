package cli

import (
	"os"

	ucli "github.com/urfave/cli/v2"
)

func importCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "import",
		Usage:     "import another tool's knowledge log (keys kept)",
		ArgsUsage: "PATH",
		Description: "--from lavra reads Lavra's .lavra/memory/knowledge.jsonl (or .beads/memory/...).\n" +
			"Double-encoded lines are repaired; entries already present are skipped, so\n" +
			"importing twice adds nothing.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "from", Usage: "the format: lavra (or cairn)", Required: false},
			&ucli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *ucli.Context) error {
			switch c.String("from") {
			case "lavra", "cairn":
			case "":
				return usagef("import needs --from lavra")
			default:
				return usagef("unknown --from %q: cairn imports lavra (and cairn) logs", c.String("from"))
			}
			if c.NArg() != 1 {
				return usagef("import needs the PATH of the log to import")
			}
			src, err := readArg(env, c.Args().First(), "check the path")
			if err != nil {
				return err
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.Store.Provision(); err != nil {
				return err
			}
			res, err := p.Store.Import(src)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, res)
			}
			res.Write(env.Stdout, c.Args().First())
			return nil
		},
	}
}

// unwrapPath drops the *PathError's path, which the message already names.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

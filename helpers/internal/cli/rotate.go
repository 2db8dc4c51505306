package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func rotateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "rotate",
		Usage: "move old entries into knowledge.archive.jsonl once the log is long",
		Description: "When the log holds more than --max-lines lines, the oldest move to the archive\n" +
			"and the newest half stay. The choice depends only on the log's content, so two\n" +
			"branches that rotate the same history produce the same files.",
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "max-lines", Value: knowledge.DefaultMaxLines, Usage: "rotate when the log holds more lines than this"},
			&ucli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.Int("max-lines") < 2 {
				return usagef("--max-lines must be at least 2")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			res, err := p.Store.Rotate(c.Int("max-lines"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, map[string]int{"lines": res.Lines, "archived": res.Archived, "kept": res.Kept})
			}
			res.Write(env.Stdout, c.Int("max-lines"))
			return nil
		},
	}
}

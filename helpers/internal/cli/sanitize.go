package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func sanitizeCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "sanitize",
		Usage: "write the local working set (cache/active.jsonl) and its audit (cache/audit.jsonl)",
		Description: "Reads the shared log and never changes it. The working set holds the latest line\n" +
			"of every key, without retracted and superseded entries, noise (pasted commands,\n" +
			"log lines, stack traces, fragments), duplicates (collapsed to the newest) and\n" +
			"stale entries (every file they name is gone). Entries naming a missing file or\n" +
			"symbol are flagged needs_review, entries whose files changed since their commit\n" +
			"are flagged outdated; recall ranks flagged entries lower and marks them. The\n" +
			"audit has one line per decision with the keys and the reason.\n" +
			"Hooks run it in the background when the log changed.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&ucli.BoolFlag{Name: "background", Hidden: true, Usage: "run quietly, as started by a hook"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("sanitize takes no arguments")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.RequireStore(); err != nil {
				return err
			}
			if c.Bool("background") {
				session.SanitizeInBackground(p, env.Getenv)
				return nil
			}
			res, _, err := sanitize.Run(p.Store, sanitize.Options{Root: p.Root}, true)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, res.Summary)
			}
			sanitize.WriteSummary(env.Stdout, res.Summary)
			return nil
		},
	}
}

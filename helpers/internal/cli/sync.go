package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/doctor"
	"github.com/cairn-dev/cairn/helpers/internal/search"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func syncCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "sync",
		Usage: "bring the local cache (.cairn/cache) up to date with the log",
		Description: "Run after a git pull changed .cairn/knowledge.jsonl (SessionStart does it for you).\n" +
			"The cache is disposable: deleting .cairn/cache loses nothing.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "full", Usage: "rebuild the cache from scratch"},
			&ucli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			&ucli.BoolFlag{Name: "background", Hidden: true, Usage: "run quietly, as started by a hook"},
		},
		Action: func(c *ucli.Context) error {
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if c.Bool("background") {
				session.SyncInBackground(p, env.Getenv, c.Bool("full"))
				return nil
			}
			rep, err := search.Sync(p.Store, c.Bool("full"))
			if err != nil {
				return err
			}
			// The sync itself succeeds; a merge's conflict markers are
			// named on stderr with the fix.
			for _, line := range doctor.ConflictHints(p.Store, rep.Problems) {
				fmt.Fprintln(env.Stderr, "cairn: "+line)
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, map[string]any{
					"current": rep.Current, "rebuilt": rep.Rebuilt, "added": rep.Added,
					"removed": rep.Removed, "entries": rep.Entries, "problems": rep.Problems,
				})
			}
			search.WriteSync(env.Stdout, rep)
			return nil
		},
	}
}

package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/doctor"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	ucli "github.com/urfave/cli/v2"
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
			rep, err := index.SyncStore(p.Store, c.Bool("full"))
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
			switch {
			case rep.Rebuilt:
				fmt.Fprintf(env.Stdout, "rebuilt the cache: %d entries\n", rep.Entries)
			case rep.Current:
				fmt.Fprintf(env.Stdout, "cache is current: %d entries\n", rep.Entries)
			default:
				fmt.Fprintf(env.Stdout, "cache updated: %d lines added, %d removed; %d entries\n", rep.Added, rep.Removed, rep.Entries)
			}
			printProblems(env.Stdout, rep.Problems)
			return nil
		},
	}
}

// printProblems reports what the reader skipped or repaired, if anything.
func printProblems(w io.Writer, problems map[string]int) {
	if len(problems) == 0 {
		return
	}
	var repaired, skipped []string
	nr, ns := 0, 0
	kinds := make([]string, 0, len(problems))
	for k := range problems {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		n := problems[k]
		if (knowledge.Problem{Kind: k}).Repaired() {
			repaired = append(repaired, fmt.Sprintf("%d %s", n, k))
			nr += n
		} else {
			skipped = append(skipped, fmt.Sprintf("%d %s", n, k))
			ns += n
		}
	}
	if ns > 0 {
		fmt.Fprintf(w, "skipped %d unreadable lines (%s); the log is unchanged: run cairn doctor for details\n", ns, strings.Join(skipped, ", "))
	}
	if nr > 0 {
		fmt.Fprintf(w, "repaired %d lines on reading (%s)\n", nr, strings.Join(repaired, ", "))
	}
}

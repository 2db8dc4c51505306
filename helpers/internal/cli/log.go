package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

func logCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "log",
		Usage: "what cairn put in front of agents on this machine, newest first, and why",
		Description: "Each injection of the hooks (session start, prompt, before a tool): when, which agent and\n" +
			"session, the branch, the moment, each entry's key with why it was chosen\n" +
			"(branch, commit, commit files, task words, must-check, personal, prompt words,\n" +
			"anchored to the file; handoff items are counted), the notes it left for a tool\n" +
			"on their files, and the budget used. --show adds the exact text\n" +
			"injected. The record is this developer's own, in .cairn/local/injections\n" +
			"(gitignored), and keeps the last 200 injections.",
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "last", Value: 10, Usage: "at most N injections"},
			&ucli.StringFlag{Name: "session", Usage: "only the injections of session ID"},
			&ucli.BoolFlag{Name: "show", Usage: "print the exact text injected"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON (an array, newest first; the text only with --show)"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("log takes no argument (filter with --session ID)")
			}
			if c.Int("last") < 1 {
				return usagef("--last must be at least 1")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			all, err := recall.Injections(p.Store)
			if err != nil {
				return err
			}
			list := recall.Select(all, c.Int("last"), c.String("session"), c.Bool("show"))
			if c.Bool("json") {
				return writeJSON(env.Stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(env.Stderr, "cairn: no injection recorded yet (the session-start and prompt hooks record theirs)")
				return nil
			}
			recall.WriteInjections(env.Stdout, list)
			return nil
		},
	}
}

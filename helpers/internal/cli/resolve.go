package cli

import (
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func resolveCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "resolve",
		Usage:     "repair a log that a git merge left with conflict markers: keep both sides, then stage it",
		UsageText: "cairn resolve [--json]",
		Description: "A merge without cairn's union driver (GitHub's merge button, a merge where\n" +
			".cairn/.gitattributes is not in effect) can leave <<<<<<<, |||||||, ======= and\n" +
			">>>>>>> lines in .cairn/knowledge.jsonl when two branches added entries at the\n" +
			"same place. resolve rewrites the log (and knowledge.archive.jsonl, the same way)\n" +
			"under the writers' lock:\n" +
			"  - every line of both sides of every conflict is kept; a line of a diff3 base\n" +
			"    section is kept too when neither side has it (a line one side removed);\n" +
			"  - the marker lines, blank lines and exact duplicate lines are removed;\n" +
			"  - the lines are put back in hash-of-key order, so the next merge stays clean;\n" +
			"  - a line that is not a valid entry is kept as it is: nothing is lost.\n" +
			"A marker is a whole line of exactly seven <, |, = or > characters, alone or\n" +
			"followed by a space; text inside an entry is never one.\n" +
			"In a git repository, a file it repaired that git tracks (or that the merge left\n" +
			"unmerged) is staged with git add; finish the merge with git commit.\n" +
			"A file without conflict markers is left untouched. It refuses to run from a\n" +
			"hook (CAIRN_IN_HOOK=1): resolving a merge is a person's decision.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print what was done as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("resolve takes no arguments: it repairs .cairn/knowledge.jsonl and its archive")
			}
			if session.InHook(env.Getenv) {
				return hinted(fmt.Errorf("resolve refuses to run from a hook"), "a person resolves a merge: run cairn resolve in a terminal")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.RequireStore(); err != nil {
				return err
			}
			res, files, stageErr := curate.Resolve(p)
			if files == nil {
				return stageErr
			}
			if c.Bool("json") {
				if err := writeJSON(env.Stdout, curate.ResolvedJSON(res, files)); err != nil {
					return err
				}
			} else {
				curate.WriteResolved(env.Stdout, p, files)
			}
			return stageErr
		},
	}
}

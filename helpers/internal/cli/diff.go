package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/review"
)

func diffCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "diff",
		Usage:     "the knowledge change between two revisions, as people read it",
		ArgsUsage: "[REV | REV..REV | REV...REV]",
		Description: "Compares the log and its archive (.cairn/knowledge.jsonl and\n" +
			".cairn/knowledge.archive.jsonl) between two states and lists what changed for the\n" +
			"team: entries added (type, content, author), retracted (with the reason),\n" +
			"superseded (old -> new), status changes and edits; a rotation's moves into the\n" +
			"archive are shown as such, not as removals.\n\n" +
			"Without a revision: the working tree against HEAD. REV: the working tree against\n" +
			"REV. A..B: B against A. A...B: B against where it branched from A (a pull\n" +
			"request: cairn diff origin/main...HEAD). --markdown writes a pull-request\n" +
			"comment. It is a report: it exits 0 whatever changed.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "markdown", Usage: "print Markdown for a pull-request comment"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return usagef("diff takes at most one revision or range (REV, REV..REV or REV...REV)")
			}
			if c.Bool("markdown") && c.Bool("json") {
				return usagef("--markdown and --json do not go together")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			r, err := review.Diff(p, c.Args().First())
			if err != nil {
				return err
			}
			switch {
			case c.Bool("json"):
				return writeJSON(env.Stdout, review.DiffJSON(r))
			case c.Bool("markdown"):
				all := "cairn diff"
				if rev := c.Args().First(); rev != "" {
					all += " " + fsx.ShellQuote(rev)
				}
				review.WriteDiffMarkdown(env.Stdout, r, all)
			default:
				review.WriteDiff(env.Stdout, r)
			}
			return nil
		},
	}
}

package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/review"
)

func checkCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "check",
		Usage: "the team's notes on the files a change touches, and which may be stale",
		Description: "Lists the entries anchored to the files changed between a base and the working\n" +
			"tree (HEAD and what is not committed yet): an entry anchors the files of its\n" +
			"files field, and a directory anchors everything under it. It flags those that may\n" +
			"be stale: an anchored file deleted or renamed, an anchored directory gone, a\n" +
			"symbol the entry names gone from the anchored files that held it. It also lists\n" +
			"the knowledge entries the change adds.\n\n" +
			"The base is where HEAD left --base REV (default: the repository's default branch,\n" +
			"origin/HEAD, else main or master). --markdown writes a pull-request comment.\n" +
			"It exits 0 unless --fail-on stale finds an entry that may be stale (exit 3).",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "base", Usage: "compare with where HEAD left `REV`"},
			&ucli.BoolFlag{Name: "markdown", Usage: "print Markdown for a pull-request comment"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
			&ucli.StringFlag{Name: "fail-on", Usage: "exit 3 when an entry may be `stale`"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("check takes no arguments (the base is --base REV)")
			}
			if c.Bool("markdown") && c.Bool("json") {
				return usagef("--markdown and --json do not go together")
			}
			if f := c.String("fail-on"); f != "" && f != "stale" {
				return usagef("invalid value %q for --fail-on: want stale", f)
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			r, err := review.Check(p, c.String("base"))
			if err != nil {
				return err
			}
			switch {
			case c.Bool("json"):
				err = writeJSON(env.Stdout, review.CheckJSON(r))
			case c.Bool("markdown"):
				review.WriteCheckMarkdown(env.Stdout, r, "cairn check --base "+fsx.ShellQuote(c.String("base")))
			default:
				review.WriteCheck(env.Stdout, r)
			}
			if err == nil && c.String("fail-on") == "stale" && r.Stale > 0 {
				err = &userError{msg: review.Counted(r.Stale, "anchored entry", "anchored entries") + " may be stale", code: exitStale}
			}
			return err
		},
	}
}

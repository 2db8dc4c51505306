package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	reports "github.com/cairn-dev/cairn/helpers/internal/report"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

func reportCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "report",
		Usage:     "does recall make sessions better? compare sessions with recall against the holdout's",
		ArgsUsage: " ",
		UsageText: "cairn report [--since 30d] [--agent NAME] [--json|--markdown] [--export FILE]\n" +
			"cairn report --merge FILE...\ncairn report holdout [SHARE|off]",
		Description: "Reads this machine's transcripts of the project's sessions (Claude Code's, Codex's, Gemini\n" +
			"CLI's; OpenCode's are not read), joined with\n" +
			"cairn log, and compares the sessions that had recall with the holdout sessions that had\n" +
			"none, per agent: tokens, tool calls, failed tool calls, turns, wall time, compactions,\n" +
			"edits reverted and corrective prompts; for each, the two medians, the difference and a\n" +
			"95% bootstrap interval. It also lists the injected entries that were used, and those\n" +
			"injected often and never used. The holdout is off by default: \"holdout\": 0.1 in\n" +
			".cairn/config.json (or cairn report holdout 0.1 for yourself) holds out a tenth of the\n" +
			"sessions. --export writes aggregates only (no prompt, path, key or entry text) for a\n" +
			"team to collect; --merge combines such files. Nothing leaves the machine otherwise.\n" +
			"The method and its limits: docs/report.md.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "since", Value: "30d", Usage: "sessions started in the last DURATION (30d, 12h; 0 for all)"},
			&ucli.StringFlag{Name: "agent", Usage: "only this agent's sessions (claude, codex, gemini)"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
			&ucli.BoolFlag{Name: "markdown", Usage: "print markdown"},
			&ucli.StringFlag{Name: "export", Usage: "write the aggregates to `FILE` (JSON, nothing from a transcript or the log)"},
			&ucli.BoolFlag{Name: "merge", Usage: "combine the exports named as arguments instead of reading sessions"},
		},
		Subcommands: []*ucli.Command{holdoutCommand(env)},
		Action: func(c *ucli.Context) error {
			if c.Bool("json") && c.Bool("markdown") {
				return usagef("--json and --markdown: choose one")
			}
			var r reports.Report
			if c.Bool("merge") {
				if c.NArg() == 0 {
					return usagef("--merge needs the export files as arguments")
				}
				var err error
				var paths []string
				for _, p := range c.Args().Slice() {
					paths = append(paths, abs(env, p))
				}
				if r, err = reports.Merge(paths); err != nil {
					return err
				}
			} else {
				if c.NArg() > 0 {
					return usagef("report takes no argument but with --merge (got %q)", c.Args().First())
				}
				since, err := reports.ParseSince(c.String("since"))
				if err != nil {
					return usagef("--since %q: give days (30d) or a duration (12h)", c.String("since"))
				}
				if a := c.String("agent"); a != "" && !slices.Contains(reports.Measured(adapters), a) {
					return usagef("--agent %q: cairn reports on %s", a, strings.Join(reports.Measured(adapters), ", "))
				}
				p, err := findProject(c, env)
				if err != nil {
					return err
				}
				cfg, _ := p.Store.LoadConfig()
				r, err = reports.Build(reports.Options{
					Store: p.Store, Root: p.Root, Adapters: adapters, Getenv: env.Getenv,
					Since: since, Agent: c.String("agent"), Share: holdout.Share(cfg.Holdout, userconf.Holdout(env.Getenv)),
				})
				if err != nil {
					return err
				}
			}
			if path := c.String("export"); path != "" {
				if err := reports.WriteExport(abs(env, path), r); err != nil {
					return err
				}
				fmt.Fprintf(env.Stderr, "cairn: wrote the aggregates to %s\n", path)
				return nil
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, r)
			}
			reports.WriteText(env.Stdout, r, c.Bool("markdown"))
			return nil
		},
	}
}

// holdoutCommand sets the person's own holdout share.
func holdoutCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "holdout",
		Usage:     "set your own holdout share (0 to 0.5; off is 0), over the team's",
		ArgsUsage: "[SHARE|off]",
		Action: func(c *ucli.Context) error {
			if c.NArg() == 0 {
				own := userconf.Holdout(env.Getenv)
				team := (*float64)(nil)
				if p, err := findProject(c, env); err == nil {
					cfg, _ := p.Store.LoadConfig()
					team = cfg.Holdout
				}
				fmt.Fprintln(env.Stdout, holdout.Describe(team, own))
				return nil
			}
			if c.NArg() > 1 {
				return usagef("holdout takes one argument: a share from 0 to 0.5, or off")
			}
			arg := c.Args().First()
			share := 0.0
			if arg != "off" {
				var err error
				share, err = strconv.ParseFloat(arg, 64)
				if err != nil || share < 0 || share > holdout.MaxShare {
					return usagef("holdout %q: give a share from 0 to %g (0.1 holds out a tenth of the sessions), or off", arg, holdout.MaxShare)
				}
			}
			path, err := userconf.SetHoldout(env.Getenv, share)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "your holdout share is %g (%s)\n", share, path)
			return nil
		},
	}
}

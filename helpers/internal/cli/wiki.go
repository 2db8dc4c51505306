package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/wiki"
	ucli "github.com/urfave/cli/v2"
)

func wikiCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "wiki",
		Usage: "your wiki, compiled by the model from your daily logs: compile, query, lint",
		Description: "The wiki lives in your knowledge directory (wiki/: concepts/, connections/, qa/,\n" +
			"index.md, log.md), an Obsidian vault as it is. Its sources are the daily logs the\n" +
			"session pipeline writes (daily/YYYY-MM-DD.md). The model is the pipeline's\n" +
			"(claude -p by default; model_command in your config).",
		Subcommands: []*ucli.Command{
			{
				Name:  "compile",
				Usage: "compile new or changed daily logs into articles, the index and the log",
				Flags: []ucli.Flag{
					&ucli.BoolFlag{Name: "all", Usage: "every source, changed or not"},
					&ucli.StringFlag{Name: "file", Usage: "only this source (daily/2026-11-24.md)"},
					&ucli.BoolFlag{Name: "dry-run", Usage: "list what would be compiled"},
					&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
				},
				Action: func(c *ucli.Context) error {
					w, err := wiki.OpenPersonal(env.Getenv)
					if err != nil {
						return err
					}
					res, err := wiki.Compile(w.Dir, w.Sources, wiki.CompileOptions{All: c.Bool("all"), File: c.String("file"),
						DryRun: c.Bool("dry-run"), Model: w.Model})
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return writeJSON(env.Stdout, res)
					}
					if len(res.Sources) == 0 {
						fmt.Fprintln(env.Stdout, "nothing to compile: every source is compiled as it is")
					}
					for _, s := range res.Sources {
						switch {
						case s.Skipped != "":
							fmt.Fprintf(env.Stdout, "%s: %s\n", s.Source, s.Skipped)
						default:
							fmt.Fprintf(env.Stdout, "%s: %d created, %d updated, %d refused, %d repaired\n",
								s.Source, len(s.Created), len(s.Updated), len(s.Refused), len(s.Repaired))
							for _, r := range s.Refused {
								fmt.Fprintf(env.Stdout, "  refused %s\n", r)
							}
							for _, r := range s.Repaired {
								fmt.Fprintf(env.Stdout, "  repaired %s\n", r)
							}
						}
					}
					if res.Costed {
						fmt.Fprintf(env.Stdout, "cost $%.4f\n", res.CostUSD)
					}
					return nil
				},
			},
			{
				Name:      "query",
				Usage:     "answer a question from the wiki, citing its articles",
				ArgsUsage: "QUESTION",
				Flags: []ucli.Flag{
					&ucli.BoolFlag{Name: "file-back", Usage: "file the answer under qa/ and update the index and the log"},
					&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
				},
				Action: func(c *ucli.Context) error {
					question := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
					if question == "" {
						return usagef("wiki query needs a question, e.g. cairn wiki query \"how do retries back off?\"")
					}
					w, err := wiki.OpenPersonal(env.Getenv)
					if err != nil {
						return err
					}
					a, err := wiki.Query(w.Dir, w.Sources, question, c.Bool("file-back"), w.Model, time.Now())
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return writeJSON(env.Stdout, a)
					}
					fmt.Fprintln(env.Stdout, a.Text)
					if a.Filed != "" {
						fmt.Fprintf(env.Stderr, "cairn: filed as [[%s]]\n", a.Filed)
					}
					return nil
				},
			},
			{
				Name:  "lint",
				Usage: "check the wiki: broken links, orphans, stale articles, missing backlinks, sparse articles, contradictions",
				Description: "Prints a markdown report (errors, warnings, suggestions); exits 1 when there are errors.\n" +
					"--structural-only skips the contradiction check (the only one that asks the model).",
				Flags: []ucli.Flag{
					&ucli.BoolFlag{Name: "structural-only", Usage: "no model call"},
					&ucli.BoolFlag{Name: "fix", Usage: "add the missing backlinks"},
					&ucli.BoolFlag{Name: "json", Usage: "print JSON: {\"findings\": [{check, severity, file, detail}]}"},
				},
				Action: func(c *ucli.Context) error {
					w, err := wiki.OpenPersonal(env.Getenv)
					if err != nil {
						return err
					}
					opts := wiki.LintOptions{StructuralOnly: c.Bool("structural-only"), Fix: c.Bool("fix")}
					if !opts.StructuralOnly {
						opts.Contradictions = wiki.Contradictions(w.Model)
					}
					rep, err := wiki.Lint(w.Dir, w.Sources, opts)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						if err := writeJSON(env.Stdout, rep); err != nil {
							return err
						}
					} else {
						fmt.Fprint(env.Stdout, rep.Markdown())
					}
					if n := rep.Errors(); n > 0 {
						return &userError{msg: fmt.Sprintf("the wiki has %d errors", n), code: exitError}
					}
					return nil
				},
			},
		},
	}
}

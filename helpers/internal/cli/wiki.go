package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

func wikiCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "wiki",
		Usage: "a wiki the model compiles: yours from your daily logs, or the team's (--team) from the log",
		Description: "Your wiki lives in your knowledge directory (wiki/: concepts/, connections/, qa/,\n" +
			"index.md, log.md), an Obsidian vault as it is; its sources are the daily logs the\n" +
			"session pipeline writes (daily/YYYY-MM-DD.md). With --team, the wiki is the\n" +
			"project's .cairn/wiki/, committed, compiled from .cairn/knowledge.jsonl (one source\n" +
			"per entry type). The model is the pipeline's (claude -p by default; model_command\n" +
			"in your config).",
		Subcommands: []*ucli.Command{
			wikiCompileCommand(env),
			wikiQueryCommand(env),
			wikiLintCommand(env),
		},
	}
}

// wikiCompileCommand is `cairn wiki compile`.
func wikiCompileCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "compile",
		Usage: "compile new or changed daily logs into articles, the index and the log",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "all", Usage: "every source, changed or not"},
			teamFlag,
			&ucli.StringFlag{Name: "file", Usage: "only this source (daily/2026-11-24.md)"},
			&ucli.BoolFlag{Name: "dry-run", Usage: "list what would be compiled"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *ucli.Context) error {
			w, err := openWiki(c, env)
			if err != nil {
				return err
			}
			res, err := wiki.Compile(w.Dir, w.Sources, wiki.CompileOptions{All: c.Bool("all"), File: c.String("file"),
				DryRun: c.Bool("dry-run"), Model: w.Model})
			if err != nil {
				return err
			}
			failed := error(nil)
			if n := res.Failed(); n > 0 {
				failed = fmt.Errorf("%d of %d sources failed to compile; the next compile tries them again", n, len(res.Sources))
			}
			if c.Bool("json") {
				return errors.Join(writeJSON(env.Stdout, res), failed)
			}
			res.Write(env.Stdout)
			return failed
		},
	}
}

// wikiQueryCommand is `cairn wiki query`.
func wikiQueryCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "query",
		Usage:     "answer a question from the wiki, citing its articles",
		ArgsUsage: "QUESTION",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "file-back", Usage: "file the answer under qa/ and update the index and the log"},
			teamFlag,
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *ucli.Context) error {
			question := strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
			if question == "" {
				return usagef("wiki query needs a question, e.g. cairn wiki query \"how do retries back off?\"")
			}
			w, err := openWiki(c, env)
			if err != nil {
				return err
			}
			a, err := wiki.Query(w.Dir, w.Sources, question, c.Bool("file-back"), w.Model, time.Now())
			if err != nil {
				return err
			}
			if c.Bool("team") {
				// Composed from pages compiled from the log, which
				// comes from whoever pushed: data, as recall's.
				a.Text = wiki.InertLines(a.Text)
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, a)
			}
			a.Write(env.Stdout, env.Stderr, c.Bool("team"))
			return nil
		},
	}
}

// wikiLintCommand is `cairn wiki lint`.
func wikiLintCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "lint",
		Usage: "check the wiki: broken links, orphans, stale articles, missing backlinks, sparse articles, contradictions",
		Description: "Prints a markdown report (errors, warnings, suggestions); exits 1 when there are errors.\n" +
			"--structural-only skips the contradiction check (the only one that asks the model).",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "structural-only", Usage: "no model call"},
			teamFlag,
			&ucli.BoolFlag{Name: "fix", Usage: "add the missing backlinks"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON: {\"findings\": [{check, severity, file, detail}]}"},
		},
		Action: func(c *ucli.Context) error {
			w, err := openWiki(c, env)
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
	}
}

var teamFlag = &ucli.BoolFlag{Name: "team", Usage: "the project's team wiki (.cairn/wiki, from .cairn/knowledge.jsonl)"}

// openWiki is the wiki a command works on: the user's, or with --team
// the project's.
func openWiki(c *ucli.Context, env Env) (wiki.Wiki, error) {
	if !c.Bool("team") {
		return wiki.OpenPersonal(env.Getenv)
	}
	p, err := findProject(c, env)
	if err != nil {
		return wiki.Wiki{}, err
	}
	if !p.Store.Exists() {
		return wiki.Wiki{}, project.ErrNotProvisioned
	}
	return wiki.OpenTeam(p.Store, env.Getenv)
}

package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func curateCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "curate",
		Usage:     "propose, review and apply curation lines for the shared log",
		UsageText: "cairn curate --dry-run [--out FILE]\ncairn curate --apply FILE --yes",
		Description: "--dry-run runs sanitize and proposes the exact lines to add: a canonical line for\n" +
			"the entry kept of each cluster of duplicates (merged_from lists the others), a\n" +
			"superseded line for each of the others, a needs_review line for each stale entry,\n" +
			"each with a review_reason. --out writes them to FILE for review (delete any line\n" +
			"you do not want). --apply FILE --yes adds exactly those lines, each at its sorted\n" +
			"place, and only if the log has not changed since the proposal was made.\n" +
			"Nothing is ever edited or removed; history stays in the log.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "dry-run", Usage: "propose, change nothing"},
			&ucli.StringFlag{Name: "out", Usage: "with --dry-run: write the proposal to `FILE`"},
			&ucli.StringFlag{Name: "apply", Usage: "add the lines of the proposal `FILE`"},
			&ucli.BoolFlag{Name: "yes", Usage: "with --apply: confirm that the proposal was reviewed"},
			&ucli.BoolFlag{Name: "json", Usage: "print the proposal or the result as JSON"},
		},
		Action: func(c *ucli.Context) error {
			dry, apply := c.Bool("dry-run"), c.String("apply")
			switch {
			case c.NArg() > 0:
				return usagef("curate takes no arguments; use --dry-run or --apply FILE --yes")
			case dry == (apply != ""):
				return usagef("give either --dry-run [--out FILE] or --apply FILE --yes")
			case apply != "" && !c.Bool("yes"):
				return usagef("--apply changes the shared log: review %s, then add --yes", apply)
			case c.String("out") != "" && !dry:
				return usagef("--out goes with --dry-run")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.RequireStore(); err != nil {
				return err
			}
			if dry {
				return curateDryRun(c, env, p)
			}
			if session.InHook(env.Getenv) {
				return hinted(errors.New("curate --apply refuses to run from a hook"), "a person applies curation: run it in a terminal")
			}
			return curateApply(c, env, p, abs(env, apply))
		},
	}
}

func curateDryRun(c *ucli.Context, env Env, p *project.Project) error {
	prop, data, err := curate.DryRun(p.Store, p.Root, time.Now())
	if err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		if err := os.WriteFile(abs(env, out), data, 0o644); err != nil {
			return fmt.Errorf("write proposal: %w", err)
		}
	}
	if c.Bool("json") {
		return writeJSON(env.Stdout, map[string]any{"log_sha256": prop.LogSHA256, "lines": entryjson.List(prop.Lines), "out": c.String("out")})
	}
	curate.WriteProposal(env.Stdout, prop, data, p.Store.LogPath(), c.String("out"))
	return nil
}

func curateApply(c *ucli.Context, env Env, p *project.Project, file string) error {
	n, err := curate.ApplyFile(p.Store, file)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return writeJSON(env.Stdout, map[string]any{"applied": n})
	}
	fmt.Fprintf(env.Stdout, "added %d line(s) to %s; commit it to share the curation\n", n, p.Store.LogPath())
	return nil
}

func retractCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "retract",
		Usage:     "retract an entry: add a line that takes it out of recall for good",
		ArgsUsage: "KEY --reason TEXT",
		Description: "The entry's lines stay in the log; a new line with the same key, a later ts and\n" +
			"status retracted is added. A retraction is final: no merge can bring the entry back.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "reason", Usage: "why it is wrong or no longer true (required)"},
			&ucli.BoolFlag{Name: "json", Usage: "print the added line as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("retract needs one KEY, e.g. cairn retract learned-foo-1a2b3c --reason \"fixed upstream\" (keys: cairn recall --json)")
			}
			reason := strings.TrimSpace(c.String("reason"))
			if reason == "" {
				return usagef("retract needs --reason TEXT: say why, for the teammates who relied on it")
			}
			key := c.Args().First()
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			line, err := curate.Retract(p.Store, key, reason, p.UserName(), time.Now())
			if errors.Is(err, curate.ErrAlreadyRetracted) {
				fmt.Fprintf(env.Stderr, "cairn: %s is already retracted; nothing added\n", key)
				return nil
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				// The line as written: redacted where it had to be.
				e, err := knowledge.DecodeEntry(line)
				if err != nil {
					return err
				}
				return writeJSON(env.Stdout, entryjson.Of(e))
			}
			fmt.Fprintf(env.Stdout, "retracted %s\n", key)
			return nil
		},
	}
}

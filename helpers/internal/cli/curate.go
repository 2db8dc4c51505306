package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
	ucli "github.com/urfave/cli/v2"
)

// inHookEnv is set by the hook wrapper (scripts/cairn-hook) and by the
// background runs a hook starts, and inherited by anything they start:
// curation refuses to write from there.
const inHookEnv = "CAIRN_IN_HOOK"

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
			if err := p.requireStore(); err != nil {
				return err
			}
			if dry {
				return curateDryRun(c, env, p)
			}
			if env.Getenv(inHookEnv) == "1" {
				return hinted(errors.New("curate --apply refuses to run from a hook"), "a person applies curation: run it in a terminal")
			}
			return curateApply(c, env, p, abs(env, apply))
		},
	}
}

func curateDryRun(c *ucli.Context, env Env, p *project) error {
	res, _, err := sanitize.Run(p.store, sanitize.Options{Root: p.root}, true)
	if err != nil {
		return explainRead(err)
	}
	prop := curate.Propose(res, time.Now())
	data, err := prop.Encode()
	if err != nil {
		return err
	}
	if out := c.String("out"); out != "" {
		if err := os.WriteFile(abs(env, out), data, 0o644); err != nil {
			return fmt.Errorf("write proposal: %w", err)
		}
	}
	if c.Bool("json") {
		lines := []knowledge.Entry{}
		for _, e := range prop.Lines {
			lines = append(lines, cleanEntry(e))
		}
		return writeJSON(env.Stdout, map[string]any{"log_sha256": prop.LogSHA256, "lines": lines, "out": c.String("out")})
	}
	if len(prop.Lines) == 0 {
		fmt.Fprintln(env.Stdout, "nothing to curate: no duplicates or stale entries beyond what the log already records")
		return nil
	}
	fmt.Fprintf(env.Stdout, "%d line(s) would be added to %s:\n", len(prop.Lines), p.store.LogPath())
	for _, e := range prop.Lines {
		fmt.Fprintln(env.Stdout, "  "+curate.Describe(e))
	}
	if out := c.String("out"); out != "" {
		fmt.Fprintf(env.Stdout, "proposal written to %s; review it (delete lines you do not want), then:\n  cairn curate --apply %s --yes\n", out, out)
		return nil
	}
	fmt.Fprintln(env.Stdout, "exact lines:")
	lines := strings.SplitN(string(data), "\n", 2)
	fmt.Fprint(env.Stdout, lines[1])
	fmt.Fprintln(env.Stdout, "to apply: cairn curate --dry-run --out FILE, review FILE, then cairn curate --apply FILE --yes")
	return nil
}

func curateApply(c *ucli.Context, env Env, p *project, file string) error {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return hinted(fmt.Errorf("no proposal at %s", file), "write one with cairn curate --dry-run --out FILE")
	}
	if err != nil {
		return err
	}
	prop, err := curate.Decode(data)
	if err != nil {
		return hinted(fmt.Errorf("%s: %w", file, err), "write a fresh one with cairn curate --dry-run --out FILE")
	}
	recs, _, err := p.store.ReadAll(true)
	if err != nil {
		return explainRead(err)
	}
	latest := map[string]knowledge.Entry{}
	for _, r := range knowledge.Latest(recs) {
		latest[r.Entry.Key] = r.Entry
	}
	var lines [][]byte
	for i := range prop.Lines {
		e := &prop.Lines[i]
		if _, ok := latest[e.Key]; !ok {
			return hinted(fmt.Errorf("%s: no entry with key %s in the log", file, e.Key), "re-run cairn curate --dry-run")
		}
		line, err := knowledge.Marshal(e)
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	err = p.store.InsertLinesIf(lines, func(log []byte) error {
		if sum := knowledge.Sum(log); sum != prop.LogSHA256 {
			return hinted(errors.New("the log changed since the proposal was made; nothing applied"), "re-run cairn curate --dry-run and review again")
		}
		return nil
	})
	if err != nil {
		return explainRead(err)
	}
	if c.Bool("json") {
		return writeJSON(env.Stdout, map[string]any{"applied": len(lines)})
	}
	fmt.Fprintf(env.Stdout, "added %d line(s) to %s; commit it to share the curation\n", len(lines), p.store.LogPath())
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
			recs, _, err := p.store.ReadAll(true)
			if err != nil {
				return explainRead(err)
			}
			var cur *knowledge.Entry
			for _, r := range knowledge.Latest(recs) {
				if r.Entry.Key == key {
					e := r.Entry
					cur = &e
				}
			}
			if cur == nil {
				return hinted(fmt.Errorf("no entry with key %s", key), "find keys with cairn recall WORDS --json")
			}
			if cur.Status == knowledge.StatusRetracted {
				fmt.Fprintf(env.Stderr, "cairn: %s is already retracted; nothing added\n", key)
				return nil
			}
			ret := curate.Retraction(*cur, knowledge.CleanText(reason), time.Now())
			if name := gitUserName(p); name != "" {
				ret.Author = name
			}
			line, err := knowledge.Marshal(&ret)
			if err != nil {
				return err
			}
			written := [][]byte{line}
			if err := p.store.InsertLines(written); err != nil {
				return explainRead(err)
			}
			if c.Bool("json") {
				// The line as written: redacted where it had to be.
				return writeJSON(env.Stdout, json.RawMessage(written[0]))
			}
			fmt.Fprintf(env.Stdout, "retracted %s\n", key)
			return nil
		},
	}
}

// gitUserName is the user.name of the project's repository, if any.
func gitUserName(p *project) string {
	if !p.isGit {
		return ""
	}
	return gitx.ReadQuick(p.root).UserName
}

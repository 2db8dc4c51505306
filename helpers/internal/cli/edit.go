package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func editCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "edit",
		Usage:     "correct an entry: in place if no commit holds it, else by a superseding entry",
		ArgsUsage: "KEY --content TEXT [--type T] [--tags a,b] [--files p,q]",
		Description: "An entry no commit holds yet is rewritten in place: its lines are replaced by\n" +
			"one line of the corrected entry (a new key when its type or content changes).\n" +
			"A committed one keeps its lines: a new entry with the correction and supersedes\n" +
			"KEY is added, and a line marking KEY superseded_by it (a change of tags or files\n" +
			"only is a later line of KEY). Secrets are redacted as in cairn add. Prints the\n" +
			"key of the entry as written.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "content", Usage: "the corrected content"},
			&ucli.StringFlag{Name: "type", Usage: "the corrected type (" + strings.Join(knowledge.Types, ", ") + ")"},
			&ucli.StringFlag{Name: "tags", Usage: "the tags, comma-separated (an empty value clears them)"},
			&ucli.StringFlag{Name: "files", Usage: "the files, comma-separated, relative to the project root (an empty value clears them)"},
			&ucli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("edit needs one KEY, e.g. cairn edit learned-foo-1a2b3c --content \"the corrected text\"")
			}
			var ch curate.Change
			if c.IsSet("content") {
				s := c.String("content")
				if knowledge.CleanContent(s) == "" {
					return usagef("--content is empty: give the corrected knowledge")
				}
				ch.Content = &s
			}
			if c.IsSet("type") {
				t, err := knowledge.NormalizeType(c.String("type"))
				if err != nil {
					return usagef("--type: %v", err)
				}
				ch.Type = &t
			}
			if c.IsSet("tags") {
				tags := splitList(c.String("tags"))
				ch.Tags = &tags
			}
			if c.IsSet("files") {
				files := splitList(c.String("files"))
				ch.Files = &files
			}
			if ch == (curate.Change{}) {
				return usagef("edit needs what to change: --content TEXT, --type T, --tags a,b or --files p,q")
			}
			key := c.Args().First()
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			by := curate.Editor{Author: p.UserName()}
			by.Source, by.Agent, by.Session = session.Provenance(adapters, env.Getenv, p.Store)
			ed, err := curate.Edit(p, key, ch, by, time.Now())
			switch {
			case errors.Is(err, knowledge.ErrInput):
				return usagef("%v", err)
			case errors.Is(err, curate.ErrUnchanged):
				fmt.Fprintf(env.Stderr, "cairn: %s already reads so; nothing changed\n", key)
				return nil
			case err != nil:
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, curate.EditJSON(ed))
			}
			ed.Write(env.Stdout, env.Stderr, key)
			return nil
		},
	}
}

package cli

import (
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

func addCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "add",
		Usage:     "record one entry in the shared log and print its key",
		ArgsUsage: "TYPE CONTENT",
		Description: "TYPE is one of " + strings.Join(knowledge.Types, ", ") + ".\n" +
			"Adding the same content of the same type again adds nothing and prints the existing key.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "tags", Usage: "comma-separated tags (at most 20)"},
			&ucli.StringFlag{Name: "bead", Usage: "the bead (task) id this belongs to (one line)"},
			&ucli.StringFlag{Name: "files", Usage: "comma-separated paths inside the project it is about, relative to its root (at most 50; files the content names are added)"},
			&ucli.StringFlag{Name: "source", Value: "user", Usage: "who recorded it (user, agent, ...; default: agent when a coding agent's tool runs cairn, with the agent and its session, else user)"},
			&ucli.BoolFlag{Name: "json", Usage: "print the entry as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() < 2 {
				return usagef("add needs TYPE and CONTENT, e.g. cairn add learned \"the retry loop lives in client.go\"")
			}
			typ, err := knowledge.NormalizeType(c.Args().Get(0))
			if err != nil {
				return usagef("%v", err)
			}
			// As typed: the log's writer redacts it before it folds it.
			content := strings.Join(c.Args().Slice()[1:], " ")
			if knowledge.CleanContent(content) == "" {
				return usagef("empty content: give the knowledge to record as the second argument")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			e := knowledge.Entry{
				Type:    typ,
				Content: content,
				Source:  c.String("source"),
				Tags:    splitList(c.String("tags")),
				Bead:    c.String("bead"),
				Files:   splitList(c.String("files")),
			}
			if !c.IsSet("source") {
				e.Source, e.Agent, e.Session = session.Provenance(adapters, env.Getenv, p.Store)
			}
			key, added, err := p.Add(e)
			if errors.Is(err, knowledge.ErrInput) {
				return usagef("%v", err)
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, map[string]any{"key": key, "added": added})
			}
			fmt.Fprintln(env.Stdout, key)
			if !added {
				fmt.Fprintln(env.Stderr, "cairn: already recorded; nothing added")
			}
			return nil
		},
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

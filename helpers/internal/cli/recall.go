package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/search"
)

func recallCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "recall",
		Usage:     "search the team's knowledge, best match first",
		ArgsUsage: "[QUERY...]",
		Description: "Without a query, lists the newest entries. Retracted and superseded entries\n" +
			"are left out; --all adds the archive. With --explain, the same hits in the same\n" +
			"order, each with its score and why: the terms it matched and in which field,\n" +
			"those that came from splitting an identifier or from synonyms, the priors and\n" +
			"any verdict of sanitize that moved it; the query's reading comes first.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "type", Usage: "only entries of this type"},
			&ucli.BoolFlag{Name: "all", Usage: "include the archive (knowledge.archive.jsonl)"},
			&ucli.IntFlag{Name: "recent", Usage: "the N newest entries (matching the query, if any)"},
			&ucli.BoolFlag{Name: "stats", Usage: "counts by type, status, author and month"},
			&ucli.IntFlag{Name: "limit", Value: 10, Usage: "at most N entries"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON (an array of entries; an object with --stats or --explain)"},
			&ucli.BoolFlag{Name: "explain", Usage: "show how the query was read and, for each hit in recall's order, its score and why"},
		},
		Action: func(c *ucli.Context) error {
			typ := ""
			if t := c.String("type"); t != "" {
				var err error
				if typ, err = knowledge.NormalizeType(t); err != nil {
					return usagef("--type: %v", err)
				}
			}
			if c.Int("limit") < 1 {
				return usagef("--limit must be at least 1")
			}
			if c.Bool("explain") && c.Bool("stats") {
				return usagef("--explain and --stats do not go together")
			}
			if c.IsSet("recent") && c.Int("recent") < 1 {
				return usagef("--recent must be at least 1")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if c.Bool("stats") {
				st, err := search.Stats(p.Store, c.Bool("all"))
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(env.Stdout, st)
				}
				search.WriteStats(env.Stdout, st, c.Bool("all"))
				return nil
			}
			q := rank.Query{
				Text:  strings.Join(c.Args().Slice(), " "),
				Type:  typ,
				All:   c.Bool("all"),
				Limit: c.Int("limit"),
				Floor: true,
			}
			if c.IsSet("recent") {
				q.NewestFirst = true
				q.Limit = c.Int("recent")
			}
			if q.Text == "" {
				if c.Bool("explain") {
					return usagef("--explain needs a query: cairn recall --explain WORDS")
				}
				q.NewestFirst = true
			}
			if c.Bool("explain") {
				x, err := search.Explain(p.Store, q)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return writeJSON(env.Stdout, x)
				}
				search.WriteExplanation(env.Stdout, x)
				return nil
			}
			hits, err := rank.SearchStore(p.Store, q)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, search.Entries(hits))
			}
			if len(hits) == 0 {
				fmt.Fprintln(env.Stderr, "cairn: nothing matches")
				return nil
			}
			search.WriteHits(env.Stdout, hits)
			return nil
		},
	}
}

package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	ucli "github.com/urfave/cli/v2"

	"github.com/cairn-dev/cairn/helpers/internal/when"
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
				st, err := index.StatsOf(p.Store, c.Bool("all"))
				if err != nil {
					return err
				}
				st.ByAuthor, st.ByStatus, st.ByType = cleanKeys(st.ByAuthor), cleanKeys(st.ByStatus), cleanKeys(st.ByType)
				st.ByMonth, st.Problems = cleanKeys(st.ByMonth), cleanKeys(st.Problems)
				if c.Bool("json") {
					return writeJSON(env.Stdout, st)
				}
				printStats(env.Stdout, st, c.Bool("all"))
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
				a := relevance.Analyse(q.Text)
				hits, fields, g, err := rank.ExplainStore(p.Store, q, a.All())
				if err != nil {
					return err
				}
				x := explain(q, a, hits, fields, g)
				if c.Bool("json") {
					return writeJSON(env.Stdout, x)
				}
				printExplanation(env.Stdout, x)
				return nil
			}
			hits, err := rank.SearchStore(p.Store, q)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(env.Stdout, hitsJSON(hits))
			}
			if len(hits) == 0 {
				fmt.Fprintln(env.Stderr, "cairn: nothing matches")
				return nil
			}
			printHits(env.Stdout, hits)
			return nil
		},
	}
}

// hitsJSON is the --json form of the entries found: package entryjson's,
// the MCP recall tool's.
func hitsJSON(hits []rank.Hit) []entryjson.Entry {
	out := make([]entryjson.Entry, 0, len(hits))
	for _, h := range hits {
		out = append(out, entryjson.New(h.Entry, h.Score, h.Archived))
	}
	return out
}

// printHits prints entries for a person or an agent: inside the same
// untrusted wrapper as the hook's injection, each text made inert by
// untrusted.ForAgent (no control character, no escape, no tag, no role
// marker can get through).
func printHits(w io.Writer, hits []rank.Hit) {
	fmt.Fprintln(w, recall.OpenTag)
	fmt.Fprintln(w, recall.ShortPreamble)
	for _, h := range hits {
		printHit(w, h)
	}
	fmt.Fprintln(w, recall.CloseTag)
}

func printHit(w io.Writer, h rank.Hit) {
	e := h.Entry
	inert := func(s string) string { return untrusted.ForAgent(s, 0) }
	fmt.Fprintf(w, "[%s] %s\n", inert(e.Type), inert(e.Content))
	meta := []string{inert(e.Key)}
	if len(e.Tags) > 0 {
		meta = append(meta, "tags: "+inert(strings.Join(e.Tags, ", ")))
	}
	if e.Bead != "" {
		meta = append(meta, "bead: "+inert(e.Bead))
	}
	day := when.Day(time.Unix(e.TS, 0))
	if e.Author != "" {
		day += " by " + inert(e.Author)
	}
	meta = append(meta, day)
	if e.Status != "" {
		meta = append(meta, "status: "+inert(e.Status))
	}
	if h.Archived {
		meta = append(meta, "archived")
	}
	if e.Note != "" {
		meta = append(meta, inert(e.Note))
	}
	fmt.Fprintf(w, "  %s\n", strings.Join(meta, " | "))
}

func printStats(w io.Writer, st index.Stats, all bool) {
	scope := "active log"
	if all {
		scope = "log and archive"
	}
	fmt.Fprintf(w, "%d entries (%s); %d in the archive\n", st.Total, scope, st.Archived)
	for _, g := range []struct {
		title string
		m     map[string]int
		byKey bool
	}{{"by type", st.ByType, false}, {"by status", st.ByStatus, false}, {"by author", st.ByAuthor, false}, {"by month", st.ByMonth, true}, {"log problems", st.Problems, false}} {
		if len(g.m) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, kv := range sortCounts(g.m, g.byKey) {
			fmt.Fprintf(w, "  %-24s %d\n", kv.Name, kv.Count)
		}
	}
}

func sortCounts(m map[string]int, byKey bool) []index.Count {
	out := make([]index.Count, 0, len(m))
	for k, v := range m {
		out = append(out, index.Count{Name: k, Count: v})
	}
	sort.Slice(out, func(a, b int) bool {
		if !byKey && out[a].Count != out[b].Count {
			return out[a].Count > out[b].Count
		}
		return out[a].Name < out[b].Name
	})
	return out
}

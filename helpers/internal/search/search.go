// Package search owns cairn recall's and cairn sync's use cases over the
// cache (index, ranked by rank): a query's hits, their explanation
// (--explain: how the query was read and why each hit is there), the
// log's counts (--stats), and the cache brought up to date; and the forms
// people read of each, every text of the log made inert.
package search

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
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Explain is q's hits, as rank.SearchStore finds them in the same order, each with
// why it is there, after how q was read.
func Explain(s *knowledge.Store, q rank.Query) (Explanation, error) {
	a := relevance.Analyse(q.Text)
	hits, fields, g, err := rank.ExplainStore(s, q, a.All())
	if err != nil {
		return Explanation{}, err
	}
	return explain(q, a, hits, fields, g), nil
}

// Stats are the log's counts (all: with the archive), every name in them
// cleaned for a terminal.
func Stats(s *knowledge.Store, all bool) (index.Stats, error) {
	st, err := index.StatsOf(s, all)
	if err != nil {
		return st, err
	}
	st.ByAuthor, st.ByStatus, st.ByType = cleanKeys(st.ByAuthor), cleanKeys(st.ByStatus), cleanKeys(st.ByType)
	st.ByMonth, st.Problems = cleanKeys(st.ByMonth), cleanKeys(st.Problems)
	return st, nil
}

// cleanKeys cleans the keys of a count map (authors, months) for output.
func cleanKeys(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[untrusted.ForTerminal(k)] += v
	}
	return out
}

// Entries is the --json form of the entries found: package entryjson's,
// the MCP recall tool's.
func Entries(hits []rank.Hit) []entryjson.Entry {
	out := make([]entryjson.Entry, 0, len(hits))
	for _, h := range hits {
		out = append(out, entryjson.New(h.Entry, h.Score, h.Archived))
	}
	return out
}

// WriteHits writes entries for a person or an agent: inside the same
// untrusted wrapper as the hook's injection, each text made inert by
// untrusted.ForAgent (no control character, no escape, no tag, no role
// marker can get through).
func WriteHits(w io.Writer, hits []rank.Hit) {
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

// WriteStats writes the counts of st (all: with the archive) for people.
func WriteStats(w io.Writer, st index.Stats, all bool) {
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

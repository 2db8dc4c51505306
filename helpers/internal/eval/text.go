package eval

import (
	"fmt"
	"io"
	"sort"
)

// Set is one set of labelled queries, the corpus they run on ("" for
// the project's log) and what eval measured.
type Set struct {
	Queries string            `json:"queries"`
	Corpus  string            `json:"corpus,omitempty"`
	Results map[string]Result `json:"results"`
}

// WriteSets writes the results of sets at cut-off k, each headed by its
// files when there are several.
func WriteSets(w io.Writer, sets []Set, k int) {
	for i, set := range sets {
		if len(sets) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s", set.Queries)
			if set.Corpus != "" {
				fmt.Fprintf(w, " on %s", set.Corpus)
			}
			fmt.Fprintln(w, ":")
		}
		WriteTable(w, set.Results, k)
	}
}

// WriteTable writes results at cut-off k as a table: every engine's
// metrics over all queries, then by kind.
func WriteTable(w io.Writer, results map[string]Result, k int) {
	names := []string{"cairn"}
	if _, ok := results["grep"]; ok {
		names = append(names, "grep")
	}
	kinds := map[string]bool{}
	for _, r := range results {
		for kind := range r.ByKind {
			kinds[kind] = true
		}
	}
	kindList := make([]string, 0, len(kinds))
	for kind := range kinds {
		kindList = append(kindList, kind)
	}
	sort.Strings(kindList)
	fmt.Fprintf(w, "%-12s %-7s %7s %7s %7s %7s %7s %9s %s\n", "kind", "engine", "queries", fmt.Sprintf("P@%d", k), fmt.Sprintf("R@%d", k), "MRR", "nDCG@10", "negatives", "with results")
	row := func(kind, name string, m Metrics) {
		fmt.Fprintf(w, "%-12s %-7s %7d %7.3f %7.3f %7.3f %7.3f %9d %d\n", kind, name, m.Queries, m.PAtK, m.RAtK, m.MRR, m.NDCG10, m.Negatives, m.NegativesWithResults)
	}
	for _, name := range names {
		row("all", name, results[name].Metrics)
	}
	for _, kind := range kindList {
		for _, name := range names {
			row(kind, name, results[name].ByKind[kind])
		}
	}
}

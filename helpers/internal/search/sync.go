package search

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Sync brings the store's cache up to date with its log (full: rebuilt
// from scratch).
func Sync(s *knowledge.Store, full bool) (index.SyncReport, error) { return index.SyncStore(s, full) }

// WriteSync writes what a sync did for people, with what the reader
// skipped or repaired.
func WriteSync(w io.Writer, rep index.SyncReport) {
	switch {
	case rep.Rebuilt:
		fmt.Fprintf(w, "rebuilt the cache: %d entries\n", rep.Entries)
	case rep.Current:
		fmt.Fprintf(w, "cache is current: %d entries\n", rep.Entries)
	default:
		fmt.Fprintf(w, "cache updated: %d lines added, %d removed; %d entries\n", rep.Added, rep.Removed, rep.Entries)
	}
	writeProblems(w, rep.Problems)
}

// writeProblems reports what the reader skipped or repaired, if anything.
func writeProblems(w io.Writer, problems map[string]int) {
	if len(problems) == 0 {
		return
	}
	var repaired, skipped []string
	nr, ns := 0, 0
	kinds := make([]string, 0, len(problems))
	for k := range problems {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		n := problems[k]
		if (knowledge.Problem{Kind: k}).Repaired() {
			repaired = append(repaired, fmt.Sprintf("%d %s", n, k))
			nr += n
		} else {
			skipped = append(skipped, fmt.Sprintf("%d %s", n, k))
			ns += n
		}
	}
	if ns > 0 {
		fmt.Fprintf(w, "skipped %d unreadable lines (%s); the log is unchanged: run cairn doctor for details\n", ns, strings.Join(skipped, ", "))
	}
	if nr > 0 {
		fmt.Fprintf(w, "repaired %d lines on reading (%s)\n", nr, strings.Join(repaired, ", "))
	}
}

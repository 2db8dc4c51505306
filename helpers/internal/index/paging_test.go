package index

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// Newest's pages, one after another, are exactly the whole listing in
// order (ties in ts broken by key), with and without terms and filters,
// and Selected counts what they page through.
func TestNewestPagesAndSelected(t *testing.T) {
	s := newStore(t)
	var lines [][]byte
	for i := range 37 {
		e := knowledge.Entry{Type: []string{"fact", "learned"}[i%2], Content: fmt.Sprintf("entry %d about the %s", i, []string{"cache", "queue", "hook"}[i%3]),
			TS: 1_700_000_000 + int64(i/3)*60, Author: []string{"Ana", "Bo"}[i%2]}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		if i == 5 {
			e.Status = knowledge.StatusRetracted
		}
		lines = append(lines, mkLine(e))
	}
	writeLog(t, s, join(lines))
	ix := openIndex(t, s)
	mustSync(t, ix)
	for _, tc := range []struct {
		name  string
		terms []string
		f     Filter
		want  int
	}{
		{"all", nil, Filter{}, 36},
		{"with the inactive", nil, Filter{Inactive: true}, 37},
		{"by type", nil, Filter{Type: "fact"}, 19},
		{"by author", nil, Filter{Narrow: Narrow{Author: "Bo"}}, 17},
		{"matching cache", relevance.Terms("cache"), Filter{}, 13},
	} {
		whole, err := ix.Newest(tc.terms, tc.f, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		n, err := ix.Selected(tc.terms, tc.f)
		if err != nil || n != tc.want || len(whole) != n {
			t.Errorf("%s: Selected = %d (%v), the listing holds %d, want %d", tc.name, n, err, len(whole), tc.want)
		}
		var paged []Candidate
		for skip := 0; skip < n+10; skip += 10 {
			page, err := ix.Newest(tc.terms, tc.f, skip, 10)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
		}
		if got, want := fmt.Sprint(hitKeys(paged)), fmt.Sprint(hitKeys(whole)); got != want {
			t.Errorf("%s: the pages read\n%s\nthe whole listing\n%s", tc.name, got, want)
		}
	}
}

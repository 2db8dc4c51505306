package search

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
)

// recall's use cases on a store: the sync, the explanation of a query in
// search's order, the counts, and what people read of each.
func TestSyncExplainStats(t *testing.T) {
	s := knowledge.Open(t.TempDir())
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	entries := []knowledge.Entry{
		{Type: "learned", Content: "the retry loop backs off in client.go", Author: "ana", TS: 1},
		{Type: "decision", Content: "use sqlite for the cache", Author: "bo", TS: 2},
	}
	for i, e := range entries {
		entries[i].Key = knowledge.MakeKey(e.Type, e.Content)
	}
	if _, err := s.Insert(entries); err != nil {
		t.Fatal(err)
	}
	rep, err := Sync(s, true)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteSync(&b, rep)
	if b.String() != "rebuilt the cache: 2 entries\n" {
		t.Errorf("sync printed %q", b.String())
	}
	q := rank.Query{Text: "retry loop", Limit: 10, Floor: true}
	hits, err := rank.SearchStore(s, q)
	if err != nil {
		t.Fatal(err)
	}
	x, err := Explain(s, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || len(x.Hits) != 1 || x.Hits[0].Key != hits[0].Entry.Key || len(x.Hits[0].Matched) == 0 {
		t.Fatalf("hits %v, explained %+v", hits, x.Hits)
	}
	b.Reset()
	WriteExplanation(&b, x)
	if !strings.Contains(b.String(), "query: retry loop") || !strings.Contains(b.String(), "1. "+hits[0].Entry.Key) {
		t.Errorf("explanation printed:\n%s", b.String())
	}
	st, err := Stats(s, false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 2 || st.ByAuthor["ana"] != 1 {
		t.Errorf("stats %+v: want 2 entries, one by ana", st)
	}
}

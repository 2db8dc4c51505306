package index

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// A cache's generation stays while nothing writes it, and moves with
// every write: a sync of a new line, and a rebuild.
func TestGenerationMovesWithEveryWrite(t *testing.T) {
	s := newStore(t)
	add := func(content string) {
		t.Helper()
		e := knowledge.Entry{Type: "fact", Content: content, TS: 1_700_000_000}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
	gen := func(sync func(*Index) error) string {
		t.Helper()
		ix, err := Open(s)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		if err := sync(ix); err != nil {
			t.Fatal(err)
		}
		g, err := ix.Generation()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	synced := func(ix *Index) error { _, err := ix.Sync(); return err }
	rebuilt := func(ix *Index) error { _, err := ix.Rebuild(); return err }
	add("the first entry")
	first := gen(synced)
	if again := gen(synced); again != first {
		t.Errorf("nothing written, the generation moved: %s, then %s", first, again)
	}
	add("the second entry")
	second := gen(synced)
	if second == first {
		t.Errorf("a line synced, the generation stayed %s", first)
	}
	if third := gen(rebuilt); third == second || third == first {
		t.Errorf("rebuilt, the generation is %s (before, %s and %s)", third, first, second)
	}
}

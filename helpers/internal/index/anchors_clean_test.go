package index

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The map's keys are anchors read by anchor.Clean, however the log spells
// them: "./src/a.go" is found by a lookup of src/a.go, "db//migrations/"
// by one of a file under db/migrations, and a path leaving the project is
// no key.
func TestAnchorMapKeysAreClean(t *testing.T) {
	s := newStore(t)
	e := entry("learned", "the a file parses dates in UTC", "./src/a.go", "db//migrations/", "../outside.go", "/etc/hosts")
	if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, openIndex(t, s))
	m := readMap(t, s)
	var keys []string
	for k := range m.Files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"db/migrations", "src/a.go"}; !slices.Equal(keys, want) {
		t.Errorf("map keys %q, want %q", keys, want)
	}
	data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"src/a.go", "db/migrations/0001.sql"} {
		if hits := anchor.Lookup(data, []string{p}, ""); len(hits) != 1 || !slices.Equal(hits[0].Keys, []string{e.Key}) {
			t.Errorf("Lookup(%s) = %+v", p, hits)
		}
	}
}

package index

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func readMap(t *testing.T, s *knowledge.Store) anchor.Map {
	t.Helper()
	data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := anchor.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func entry(typ, content string, files ...string) knowledge.Entry {
	return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, TS: 1700000000, Files: files}
}

// Every sync that writes the cache rewrites the anchor map: live
// entries' files, must-checks' command prefixes, nothing retracted, and
// the identity of the log the hook compares.
func TestSyncWritesAnchorMap(t *testing.T) {
	s := newStore(t)
	retry := entry("learned", "the retry loop in payments/client.go must watch the context", "payments/client.go")
	dry := entry("must-check", "run `migrate up --dry-run` before editing migrations", "db/migrations")
	plain := entry("fact", "nothing anchored here")
	if _, err := s.Insert([]knowledge.Entry{retry, dry, plain}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	m := readMap(t, s)
	want := map[string][]string{"payments/client.go": {retry.Key}, "db/migrations": {dry.Key}}
	if len(m.Files) != len(want) || !slices.Equal(m.Files["payments/client.go"], want["payments/client.go"]) || !slices.Equal(m.Files["db/migrations"], want["db/migrations"]) {
		t.Errorf("files = %v, want %v", m.Files, want)
	}
	if got := m.Commands["migrate up --dry-run"]; !slices.Equal(got, []string{dry.Key}) {
		t.Errorf("commands = %v", m.Commands)
	}
	id, err := anchor.Identity(s.Root())
	if err != nil || m.Sources != id {
		t.Errorf("map identity %q, log's %q (%v)", m.Sources, id, err)
	}

	// A retraction drops the anchor; a new anchored entry adds one.
	gone := retry
	gone.Status, gone.TS = knowledge.StatusRetracted, retry.TS+1
	more := entry("pattern", "db/seed.sql is generated", "db/seed.sql")
	line, err := knowledge.Marshal(&gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InsertLines([][]byte{line}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert([]knowledge.Entry{more}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	m = readMap(t, s)
	if _, ok := m.Files["payments/client.go"]; ok {
		t.Errorf("a retracted entry is still anchored: %v", m.Files)
	}
	if !slices.Equal(m.Files["db/seed.sql"], []string{more.Key}) {
		t.Errorf("new anchor missing: %v", m.Files)
	}
	got, err := ix.Entries([]string{more.Key, retry.Key, dry.Key})
	if err != nil || len(got) != 2 || got[0].Key != more.Key || got[1].Key != dry.Key {
		t.Errorf("Entries = %v, %v", got, err)
	}
}

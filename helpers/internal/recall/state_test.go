package recall

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// A session's record keeps what it was shown and, apart, the must-checks
// shown as checks; PruneShown drops week-old records of both kinds and
// nothing else.
func TestShownAndChecked(t *testing.T) {
	s := knowledge.Open(t.TempDir())
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	if err := AddShown(s, "s1", []string{"a", "m"}); err != nil {
		t.Fatal(err)
	}
	if err := AddChecked(s, "s1", []string{"m"}); err != nil {
		t.Fatal(err)
	}
	if err := AddShown(s, "s1", []string{"b"}); err != nil {
		t.Fatal(err)
	}
	shown, checked := LoadShown(s, "s1"), LoadChecked(s, "s1")
	if len(shown) != 3 || !shown["a"] || !shown["b"] || !shown["m"] || len(checked) != 1 || !checked["m"] {
		t.Errorf("shown %v, checked %v", shown, checked)
	}
	if len(LoadChecked(s, "s2")) != 0 {
		t.Error("another session's checks")
	}

	if err := anchor.NoteTouched(s.Root(), "s1", "a.go"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir, sessionsDir)
	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("x"), 0o644)
	old := time.Now().Add(-8 * 24 * time.Hour)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		os.Chtimes(filepath.Join(dir, e.Name()), old, old)
	}
	if err := PruneShown(s, time.Now()); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != "notes.txt" {
		t.Errorf("after PruneShown: %v", left)
	}
}

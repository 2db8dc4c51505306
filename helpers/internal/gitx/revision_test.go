package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Resolve names commits as git does, FileAt reads a file at one (none
// when it has no such file, an error over the cap), and MergeBase finds
// where a branch left another.
func TestResolveFileAtMergeBase(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	clitest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "empty")
	write("one\n")
	clitest.Git(t, dir, "add", ".cairn")
	clitest.Git(t, dir, "commit", "-q", "-m", "one")
	clitest.Git(t, dir, "checkout", "-q", "-b", "feature")
	write("one\ntwo\n")
	clitest.Git(t, dir, "commit", "-q", "-am", "two")
	clitest.Git(t, dir, "checkout", "-q", "main")
	clitest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "main moves on")

	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for rev, want := range map[string]string{"HEAD~1": "one\n", "feature": "one\ntwo\n", "main~2": ""} {
		id, err := g.Resolve(rev)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", rev, err)
		}
		if full := strings.TrimSpace(clitest.Git(t, dir, "rev-parse", rev)); id != full {
			t.Errorf("Resolve(%s) = %s, git says %s", rev, id, full)
		}
		data, ok, err := g.FileAt(id, ".cairn/knowledge.jsonl", 1<<20)
		if err != nil || ok != (want != "") || string(data) != want {
			t.Errorf("FileAt(%s) = %q, %v, %v; want %q", rev, data, ok, err, want)
		}
	}
	if _, err := g.Resolve("no-such-branch"); !errors.Is(err, ErrNoRevision) {
		t.Errorf("Resolve of an unknown branch: %v", err)
	}
	feature, _ := g.Resolve("feature")
	if _, _, err := g.FileAt(feature, ".cairn/knowledge.jsonl", 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("FileAt over the cap: %v", err)
	}
	main, _ := g.Resolve("main")
	base, err := g.MergeBase(main, feature)
	if want := strings.TrimSpace(clitest.Git(t, dir, "merge-base", "main", "feature")); err != nil || base != want {
		t.Errorf("MergeBase = %s, %v; git says %s", base, err, want)
	}
}

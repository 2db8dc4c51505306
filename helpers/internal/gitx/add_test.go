package gitx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// InIndex and Add agree with git: an untracked file is not in the index
// until added; a file a merge left unmerged is in it, and Add resolves it.
func TestInIndexAndAdd(t *testing.T) {
	clitest.IsolateGit(t)
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base\n")
	if in, err := InIndex(dir, "f.txt"); err != nil || in {
		t.Fatalf("untracked file: InIndex = %v, %v", in, err)
	}
	if err := Add(dir, "f.txt"); err != nil {
		t.Fatal(err)
	}
	if in, err := InIndex(dir, "f.txt"); err != nil || !in {
		t.Fatalf("added file: InIndex = %v, %v", in, err)
	}
	clitest.Git(t, dir, "commit", "-q", "-m", "base")
	clitest.Git(t, dir, "checkout", "-q", "-b", "other")
	write("other\n")
	clitest.Git(t, dir, "commit", "-q", "-am", "other")
	clitest.Git(t, dir, "checkout", "-q", "main")
	write("main\n")
	clitest.Git(t, dir, "commit", "-q", "-am", "main")
	if _, err := runGit(dir, "merge", "other"); err == nil {
		t.Fatal("the merge did not conflict")
	}
	if clitest.Git(t, dir, "diff", "--name-only", "--diff-filter=U") != "f.txt" {
		t.Fatal("f.txt is not unmerged")
	}
	if in, err := InIndex(dir, "f.txt"); err != nil || !in {
		t.Fatalf("unmerged file: InIndex = %v, %v", in, err)
	}
	write("main\nother\n")
	if err := Add(dir, "f.txt"); err != nil {
		t.Fatal(err)
	}
	if got := clitest.Git(t, dir, "diff", "--name-only", "--diff-filter=U"); got != "" {
		t.Errorf("still unmerged after Add: %q", got)
	}
	if err := Add(dir, "missing.txt"); err == nil {
		t.Error("Add of a missing file succeeded")
	}
}

// Uncommitted names the paths with something to commit: untracked or
// changed files under them, and none once they are committed; an ignored
// file is nothing to commit.
func TestUncommitted(t *testing.T) {
	clitest.IsolateGit(t)
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	for _, f := range []string{"a/x", "b/y", "a/.gitignore"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("cache/\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Uncommitted(dir, "a", "b", "c"); err != nil || len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("untracked: Uncommitted = %v, %v", got, err)
	}
	clitest.Git(t, dir, "add", "a", "b")
	clitest.Git(t, dir, "commit", "-q", "-m", "base")
	if err := os.MkdirAll(filepath.Join(dir, "a", "cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "cache", "z"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Uncommitted(dir, "a", "b"); err != nil || len(got) != 0 {
		t.Fatalf("committed (and an ignored file): Uncommitted = %v, %v", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "y"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Uncommitted(dir, "a", "b"); err != nil || len(got) != 1 || got[0] != "b" {
		t.Fatalf("changed: Uncommitted = %v, %v", got, err)
	}
}

package gitx

import (
	"os"
	"path/filepath"
	"testing"
)

// InIndex and Add agree with git: an untracked file is not in the index
// until added; a file a merge left unmerged is in it, and Add resolves it.
func TestInIndexAndAdd(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "x"}, {"GIT_AUTHOR_EMAIL", "x@x"}, {"GIT_COMMITTER_NAME", "x"}, {"GIT_COMMITTER_EMAIL", "x@x"}} {
		t.Setenv(kv[0], kv[1])
	}
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
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
	run(t, dir, "commit", "-q", "-m", "base")
	run(t, dir, "checkout", "-q", "-b", "other")
	write("other\n")
	run(t, dir, "commit", "-q", "-am", "other")
	run(t, dir, "checkout", "-q", "main")
	write("main\n")
	run(t, dir, "commit", "-q", "-am", "main")
	if _, err := runGit(dir, "merge", "other"); err == nil {
		t.Fatal("the merge did not conflict")
	}
	if run(t, dir, "diff", "--name-only", "--diff-filter=U") != "f.txt" {
		t.Fatal("f.txt is not unmerged")
	}
	if in, err := InIndex(dir, "f.txt"); err != nil || !in {
		t.Fatalf("unmerged file: InIndex = %v, %v", in, err)
	}
	write("main\nother\n")
	if err := Add(dir, "f.txt"); err != nil {
		t.Fatal(err)
	}
	if got := run(t, dir, "diff", "--name-only", "--diff-filter=U"); got != "" {
		t.Errorf("still unmerged after Add: %q", got)
	}
	if err := Add(dir, "missing.txt"); err == nil {
		t.Error("Add of a missing file succeeded")
	}
}

package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

func BenchmarkOpenGoGit(b *testing.B) {
	dir := b.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		repo, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if repo.HasHead() {
			b.Fatal("a new repository has a HEAD commit")
		}
	}
}

// Tracked lists what git ls-files lists, with git's content hashes, and
// HashesAt reads a path's content id at an abbreviated commit, as git does.
func TestTrackedAndHashesAt(t *testing.T) {
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(dir, "src", "Components"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"src/Components/Foo.tsx": "v1\n", "README.md": "hi\n", "untracked.txt": "x\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clitest.Git(t, dir, "add", "src", "README.md")
	clitest.Git(t, dir, "commit", "-q", "-m", "one")
	first := clitest.Git(t, dir, "rev-parse", "--short=7", "HEAD")
	if err := os.WriteFile(filepath.Join(dir, "src/Components/Foo.tsx"), []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.Git(t, dir, "commit", "-q", "-am", "two")

	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tracked, err := g.Tracked()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range tracked {
		got = append(got, f.Path+" "+f.Hash)
	}
	var want []string
	for _, line := range strings.Split(clitest.Git(t, dir, "ls-files", "-s"), "\n") {
		meta, path, _ := strings.Cut(line, "\t") // mode hash stage<TAB>path
		want = append(want, path+" "+strings.Fields(meta)[1])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Tracked = %q, git ls-files = %q", got, want)
	}
	at, err := g.HashesAt(first, []string{"src/Components/Foo.tsx", "src/components/foo.tsx", "gone.go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(at) != 1 || at["src/Components/Foo.tsx"] != clitest.Git(t, dir, "rev-parse", first+":src/Components/Foo.tsx") {
		t.Errorf("HashesAt(%s) = %v", first, at)
	}
	if _, err := g.HashesAt("0000000", nil); err == nil {
		t.Error("HashesAt of an unknown commit: no error")
	}
}

func TestIsObjectID(t *testing.T) {
	for s, want := range map[string]bool{
		"9c1e2d4": true, "9C1E2D4A": true, "abcd": true,
		strings.Repeat("a", 40): true, strings.Repeat("f", 64): true,
		"abc": false, strings.Repeat("a", 65): false, "": false,
		"HEAD": false, "HEAD^{/nomatch-1}": false, "main": false, "9c1e2d4~1": false, "g123456": false,
	} {
		if got := IsObjectID(s); got != want {
			t.Errorf("IsObjectID(%q) = %v; want %v", s, got, want)
		}
	}
}

// HeadFile reads a file as HEAD has it, not as the work tree does; no
// commit yet, or no such file at HEAD, is not an error; the cap holds.
func TestHeadFile(t *testing.T) {
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if repo.HasHead() {
		t.Error("HasHead before the first commit")
	}
	if data, ok, err := repo.HeadFile(".cairn/knowledge.jsonl", 1<<20); ok || err != nil || data != nil {
		t.Errorf("HeadFile before the first commit = %q, %v, %v", data, ok, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, ".cairn", "knowledge.jsonl")
	if err := os.WriteFile(log, []byte("committed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clitest.Git(t, dir, "add", ".cairn")
	clitest.Git(t, dir, "commit", "-q", "-m", "log")
	if err := os.WriteFile(log, []byte("committed\nworking tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !repo.HasHead() {
		t.Error("no HEAD after a commit")
	}
	if data, ok, err := repo.HeadFile(".cairn/knowledge.jsonl", 1<<20); !ok || err != nil || string(data) != "committed\n" {
		t.Errorf("HeadFile = %q, %v, %v", data, ok, err)
	}
	if _, ok, err := repo.HeadFile(".cairn/knowledge.archive.jsonl", 1<<20); ok || err != nil {
		t.Errorf("HeadFile of a file HEAD lacks = %v, %v", ok, err)
	}
	if _, _, err := repo.HeadFile(".cairn/knowledge.jsonl", 4); err == nil || !strings.Contains(err.Error(), "over the cap") {
		t.Errorf("HeadFile over the cap = %v", err)
	}
}

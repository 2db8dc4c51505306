package gitmeta

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Read agrees with git itself on branch, HEAD and
// user.name: loose refs, packed refs, detached HEAD, a linked worktree, an
// unborn branch.
func TestReadAgreesWithGit(t *testing.T) {
	clitest.IsolateGit(t)
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	if q := Read(dir); q.Branch != "main" || q.Head != "" {
		t.Errorf("unborn: %+v", q)
	}
	clitest.Git(t, dir, "config", "user.name", "Ana Quick")
	clitest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	clitest.Git(t, dir, "checkout", "-q", "-b", "fix/oauth-slash")
	check := func(name, dir string) {
		t.Helper()
		q := Read(dir)
		branch := clitest.Git(t, dir, "branch", "--show-current")
		head := clitest.Git(t, dir, "rev-parse", "--short=7", "HEAD")
		if q.Branch != branch || q.Head != head || q.UserName != "Ana Quick" {
			t.Errorf("%s: Read = %+v, git says branch %q head %q", name, q, branch, head)
		}
	}
	check("loose ref", dir)
	clitest.Git(t, dir, "pack-refs", "--all")
	check("packed ref", dir)
	wt := filepath.Join(t.TempDir(), "wt")
	clitest.Git(t, dir, "worktree", "add", "-q", "-b", "feat/wt", wt)
	check("linked worktree", wt)
	clitest.Git(t, dir, "checkout", "-q", "--detach")
	if q := Read(dir); q.Branch != "" || q.Head != clitest.Git(t, dir, "rev-parse", "--short=7", "HEAD") {
		t.Errorf("detached: %+v", q)
	}
}

func TestConfigValue(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config")
	os.WriteFile(p, []byte("[core]\n\tname = not this\n[User]\n\tname = \"Bo Quote\" # comment\n[user \"x\"]\n"), 0o644)
	if got := configValue(p, "user", "name"); got != "Bo Quote" {
		t.Errorf("configValue = %q", got)
	}
}

func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	cmd := exec.Command("git", "init", "-q", dir)
	if err := cmd.Run(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Read(dir)
	}
}

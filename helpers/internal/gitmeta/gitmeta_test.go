package gitmeta

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@x", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Read agrees with git itself on branch, HEAD and
// user.name: loose refs, packed refs, detached HEAD, a linked worktree, an
// unborn branch.
func TestReadAgreesWithGit(t *testing.T) {
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	if q := Read(dir); q.Branch != "main" || q.Head != "" {
		t.Errorf("unborn: %+v", q)
	}
	run(t, dir, "config", "user.name", "Ana Quick")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	run(t, dir, "checkout", "-q", "-b", "fix/oauth-slash")
	check := func(name, dir string) {
		t.Helper()
		q := Read(dir)
		branch := run(t, dir, "branch", "--show-current")
		head := run(t, dir, "rev-parse", "--short=7", "HEAD")
		if q.Branch != branch || q.Head != head || q.UserName != "Ana Quick" {
			t.Errorf("%s: Read = %+v, git says branch %q head %q", name, q, branch, head)
		}
	}
	check("loose ref", dir)
	run(t, dir, "pack-refs", "--all")
	check("packed ref", dir)
	wt := filepath.Join(t.TempDir(), "wt")
	run(t, dir, "worktree", "add", "-q", "-b", "feat/wt", wt)
	check("linked worktree", wt)
	run(t, dir, "checkout", "-q", "--detach")
	if q := Read(dir); q.Branch != "" || q.Head != run(t, dir, "rev-parse", "--short=7", "HEAD") {
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

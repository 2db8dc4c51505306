package clitest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// NewGitRepo creates a git repository with one empty commit on branch
// "main" in a fresh t.TempDir() and returns its path; harness is the
// committer's name and prefixes failure messages. Git's global and system
// configuration are ignored.
func NewGitRepo(t testing.TB, harness string) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "user.name", harness},
		{"config", "user.email", harness + "@example.invalid"},
		{"config", "commit.gpgsign", "false"},
		{"commit", "-q", "--allow-empty", "-m", "initial commit"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: git %s: %v\n%s", harness, strings.Join(args, " "), err, out)
		}
	}
	return dir
}

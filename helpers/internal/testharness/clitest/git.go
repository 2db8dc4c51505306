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

// Git runs git with args in dir, as a test's throwaway user would (a fresh
// HOME, no system configuration, a fixed author and committer), and
// returns its output trimmed; a failure fails t.
func Git(t testing.TB, dir string, args ...string) string {
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

// IsolateGit points this test's git, and cairn's reads of git's
// configuration, away from the machine's: a fresh HOME and
// XDG_CONFIG_HOME, no system configuration, a fixed author and committer.
func IsolateGit(t testing.TB) {
	t.Helper()
	for _, kv := range [][2]string{{"GIT_CONFIG_NOSYSTEM", "1"}, {"HOME", t.TempDir()}, {"XDG_CONFIG_HOME", t.TempDir()},
		{"GIT_AUTHOR_NAME", "x"}, {"GIT_AUTHOR_EMAIL", "x@x"}, {"GIT_COMMITTER_NAME", "x"}, {"GIT_COMMITTER_EMAIL", "x@x"}} {
		t.Setenv(kv[0], kv[1])
	}
}

// Package clitest holds the shared parts of the real-client test
// harnesses (claudetest, codextest, geminitest, opencodetest, qmdtest):
// the child environment, the process group, the pinned npm install in the
// user's cache, a run to the end (Command), the tmux pane an interactive
// UI runs in, the git repository a session runs in, and the input a test
// builds (JSON lines, an endless stream).
package clitest

import (
	"os"
	"strings"
	"testing"
)

// ChildEnv returns base without the variables leaky reports (given the
// key in upper case) and without the proxy variables (the fakes are on
// loopback), then add, with NO_PROXY for loopback first; later entries
// win (see Dedup).
func ChildEnv(base []string, leaky func(upperKey string) bool, add ...string) []string {
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(k)
		switch up {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		if !leaky(up) {
			env = append(env, kv)
		}
	}
	env = append(env, "NO_PROXY=127.0.0.1,localhost")
	return Dedup(append(env, add...))
}

// Dedup keeps the last value of each key of env, in first-seen order.
func Dedup(env []string) []string {
	idx := map[string]int{}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := idx[k]; ok {
			out[i] = kv
			continue
		}
		idx[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// WithoutTmux drops the variables that tie a process to an enclosing tmux
// (the developer's), and the terminal size ones a UI must take from its
// pane.
func WithoutTmux(env []string) []string {
	var out []string
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "TMUX", "TMUX_PANE", "COLUMNS", "LINES":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Unavailable skips the test for want of something it needs (msg says
// what), or fails it when the environment variable CI is "true": CI must
// install it, as .ci/run does.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI must install it as .ci/run does", msg)
	}
	t.Skip(msg)
}

// SkipIfShort skips a real-client test under `go test -short`, the quick
// loop: everything runs but the tests that need a real agent CLI (what,
// e.g. "Claude Code CLI") or QMD, which the full suite installs.
func SkipIfShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: a real-client test (needs %s)", what)
	}
}

// IsExecutable reports whether path is a file with an execute bit.
func IsExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// IsFile reports whether path is a regular file.
func IsFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

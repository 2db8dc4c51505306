package addgate

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// The early path prints what `cairn add` prints, exits as it exits and
// writes the log line it writes, for every argument list it answers; every
// other list it leaves to the command without touching the project. Each
// row runs on two copies of one project: the early path then (when it
// declines) the command, as the binary does, on one; the command alone on
// the other.
func TestEarlyAddMatchesCommand(t *testing.T) {
	clitest.IsolateGit(t)
	t.Setenv("CAIRN_DIR", "")
	os.Unsetenv("CAIRN_DIR")
	for _, k := range []string{"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT", "CAIRN_IN_HOOK"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	// P stands for the project, Q for a directory outside any project.
	rows := []struct {
		name    string
		args    string // words split at "|"
		kind    string // git (a repository with one entry), plain (no project), hostile (the log is a link)
		cwd     string // P or Q
		env     []string
		answers bool // the early path answers
	}{
		{"one word", "add|learned|retries-back-off", "git", "P", nil, true},
		{"words joined", "add|learned|retries|back|off", "git", "P", nil, true},
		{"type with a colon, any case", "add|Decision:|use the queue", "git", "P", nil, true},
		{"a duplicate", "add|learned|the seeded entry", "git", "P", nil, true},
		{"a duplicate, folded", "add|learned|  The   seeded entry ", "git", "P", nil, true},
		{"--dir", "--dir|P|add|fact|the port is 8080", "git", "Q", nil, true},
		{"--dir=", "--dir=P|add|fact|the port is 8080", "git", "Q", nil, true},
		{"CAIRN_DIR", "add|fact|from the environment", "git", "Q", []string{"CAIRN_DIR=P"}, true},
		{"an agent's add", "add|learned|named by the agent", "git", "P", []string{"CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=s-1"}, true},
		{"an agent's add in a hook", "add|learned|a hook's own", "git", "P", []string{"CLAUDECODE=1", "CLAUDE_CODE_SESSION_ID=s-1", "CAIRN_IN_HOOK=1"}, true},
		{"a secret is redacted", "add|learned|the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789", "git", "P", nil, true},
		{"unknown type", "add|bogus|text", "git", "P", nil, false},
		{"empty content", "add|learned|   ", "git", "P", nil, false},
		{"no content", "add|learned", "git", "P", nil, false},
		{"no type", "add", "git", "P", nil, false},
		{"--json", "add|--json|learned|text", "git", "P", nil, false},
		{"a flag after", "add|learned|text|--tags|a,b", "git", "P", nil, false},
		{"--files", "add|--files|a.go|learned|text", "git", "P", nil, false},
		{"after --", "add|learned|--|-x is off", "git", "P", nil, false},
		{"help", "add|help|x", "git", "P", nil, false},
		{"-h", "add|learned|-h", "git", "P", nil, false},
		{"--dir without a value", "--dir", "git", "P", nil, false},
		{"--dir empty", "--dir=|add|learned|x", "git", "P", nil, false},
		{"--dir missing", "--dir|/nonexistent/cairn-x|add|learned|x", "git", "Q", nil, false},
		{"no project", "add|learned|outside", "plain", "Q", nil, false},
		{"a hostile log", "add|learned|refused", "hostile", "P", nil, false},
		{"another command", "version|x|y", "git", "P", nil, false},
		{"a global flag", "--help|add|learned|x", "git", "P", nil, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			outside := t.TempDir()
			a, b := newProject(t, r.kind), newProject(t, r.kind)
			run := func(p string, early bool) (stdout, stderr string, code int, answered bool) {
				sub := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "P", p), "Q", outside) }
				args := []string{"cairn"}
				for _, w := range strings.Split(r.args, "|") {
					if w == "P" || strings.HasPrefix(w, "--dir=") {
						w = sub(w)
					}
					args = append(args, w)
				}
				for _, kv := range r.env {
					k, v, _ := strings.Cut(kv, "=")
					if v == "P" {
						v = p
					}
					t.Setenv(k, v)
				}
				cwd := sub(r.cwd)
				var o, e bytes.Buffer
				before := snapshot(t, p)
				if early {
					code, answered = Run(args, Env{Getenv: os.Getenv, Stdout: &o, Stderr: &e, Dir: cwd})
					if !answered {
						if o.Len() > 0 || e.Len() > 0 {
							t.Errorf("the early path declined but printed %q %q", o.String(), e.String())
						}
						if after := snapshot(t, p); after != before {
							t.Errorf("the early path declined but changed the project:\n%s\n---\n%s", before, after)
						}
					}
				}
				if !answered {
					code = cli.Main(args, cli.Env{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e, Getenv: os.Getenv, Dir: cwd})
				}
				return strings.ReplaceAll(o.String(), p, "P"), strings.ReplaceAll(e.String(), p, "P"), code, answered
			}
			so, se, sc, answered := run(a, true)
			co, ce, cc, _ := run(b, false)
			if answered != r.answers {
				t.Errorf("the early path answered = %v, want %v", answered, r.answers)
			}
			if so != co || se != ce || sc != cc {
				t.Errorf("early path: exit %d, stdout %q, stderr %q\ncommand:    exit %d, stdout %q, stderr %q", sc, so, se, cc, co, ce)
			}
			if la, lb := logOf(t, a), logOf(t, b); la != lb {
				t.Errorf("the logs differ:\nearly:   %s\ncommand: %s", la, lb)
			}
		})
	}
}

// newProject makes a project of kind (see the table above) in a new
// directory.
func newProject(t *testing.T, kind string) string {
	t.Helper()
	switch kind {
	case "plain":
		return t.TempDir()
	case "hostile":
		p := clitest.NewGitRepo(t, "Ana Gate")
		if err := os.MkdirAll(filepath.Join(p, ".cairn"), 0o755); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
		if err := os.WriteFile(target, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(p, ".cairn", "knowledge.jsonl")); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := clitest.NewGitRepo(t, "Ana Gate")
	var o, e bytes.Buffer
	if code := cli.Main([]string{"cairn", "--dir", p, "add", "learned", "the seeded entry"}, cli.Env{Stdout: &o, Stderr: &e, Getenv: os.Getenv, Dir: p}); code != 0 {
		t.Fatalf("seed: exit %d: %s", code, e.String())
	}
	return p
}

// varying are the fields of a line that differ between the two copies:
// the time, and the commit (each copy's repository has its own).
var varying = regexp.MustCompile(`"(ts|commit)":("[0-9a-f]*"|[0-9]+)`)

// logOf is the project's log with its times blanked.
func logOf(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(p, ".cairn", "knowledge.jsonl"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return varying.ReplaceAllString(string(b), `"$1":0`)
}

// snapshot lists the project's files with their sizes, but for the
// writers' lock file, which any writer leaves behind.
func snapshot(t *testing.T, p string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil || strings.Contains(path, string(filepath.Separator)+".git") || strings.HasSuffix(path, ".lock") {
			return nil
		}
		if fi, err := os.Lstat(path); err == nil {
			b.WriteString(path + " " + fi.Mode().String())
			if fi.Mode().IsRegular() {
				b.WriteString(" " + strconv.FormatInt(fi.Size(), 10))
			}
			b.WriteString("\n")
		}
		return nil
	})
	return b.String()
}

// A panic on the early path (here a missing Getenv) is not an exit 2 from
// an init: the path declines, and the command answers.
func TestEarlyAddDeclinesOnPanic(t *testing.T) {
	clitest.IsolateGit(t)
	p := newProject(t, "git")
	before := logOf(t, p)
	var o, e bytes.Buffer
	code, ok := Run([]string{"cairn", "add", "learned", "after a panic"}, Env{Stdout: &o, Stderr: &e, Dir: p})
	if ok || code != 0 || o.Len() > 0 || e.Len() > 0 {
		t.Errorf("a panic: exit %d, answered %v, printed %q %q", code, ok, o.String(), e.String())
	}
	if logOf(t, p) != before {
		t.Error("a panic before the insertion changed the log")
	}
}

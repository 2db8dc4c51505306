package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// The slash commands and agents of the plugin: each has front matter with
// a description, and every cairn command line it tells the agent to run
// names a real subcommand with flags that subcommand accepts.
func TestPluginCommandsRunRealSubcommands(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "commands", "*.md"))
	agents, _ := filepath.Glob(filepath.Join(root, "agents", "*.md"))
	files = append(files, agents...)
	for _, want := range []string{"recall.md", "curate.md", "learn.md"} {
		if _, err := os.Stat(filepath.Join(root, "commands", want)); err != nil {
			t.Errorf("commands/%s: %v", want, err)
		}
	}
	invocation := regexp.MustCompile(`(?:scripts/cairn"?|\bcairn) ((?:[a-z]+)(?: [^\n` + "`" + `]*)?)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		front, _, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
		if !strings.HasPrefix(text, "---\n") || !ok || !strings.Contains(front, "description:") {
			t.Errorf("%s: no front matter with a description", filepath.Base(f))
		}
		for _, m := range invocation.FindAllStringSubmatch(text, -1) {
			fields := strings.Fields(m[1])
			sub := fields[0]
			if sub == "recall" || sub == "add" || sub == "curate" || sub == "retract" || sub == "sanitize" {
				var flags []string
				for _, f := range fields[1:] {
					if strings.HasPrefix(f, "--") {
						flags = append(flags, strings.SplitN(f, "=", 2)[0])
					}
				}
				var out, errOut strings.Builder
				code := cli.Main([]string{"cairn", sub, "--help"}, cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Dir: t.TempDir()})
				if code != 0 {
					t.Errorf("%s runs `cairn %s`: %s", filepath.Base(f), m[1], errOut.String())
				}
				for _, fl := range flags {
					if !strings.Contains(out.String(), fl) {
						t.Errorf("%s: cairn %s has no flag %s", filepath.Base(f), sub, fl)
					}
				}
			}
		}
	}
}

// The hook wrapper marks everything it starts as running under a hook, so
// a curation apply started from there refuses (see curate_errors.txtar).
func TestHookWrapperMarksItsChildren(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "cairn")
	out := filepath.Join(dir, "env")
	script := "#!/bin/sh\ncat >/dev/null\nprintf '%s %s %s' \"$1\" \"$2\" \"$CAIRN_IN_HOOK\" >'" + out + "'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(cairntest.RepoRoot(t), "scripts", "cairn-hook"), "Stop")
	cmd.Env = append(os.Environ(), "CAIRN_BIN="+fake, "CAIRN_IN_HOOK=")
	cmd.Stdin = strings.NewReader(`{}`)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wrapper: %v\n%s", err, b)
	}
	if got, _ := os.ReadFile(out); string(got) != "hook Stop 1" {
		t.Errorf("the binary saw %q, want \"hook Stop 1\"", got)
	}
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Hooks start background sanitize runs that would outlive a test and
	// write into its removed directory; the tests of that behaviour turn
	// it back on and wait for the run.
	os.Setenv("CAIRN_NO_BACKGROUND", "1")
	testscript.Main(m, map[string]func(){
		"cairn": func() {
			os.Exit(cli.Main(os.Args, cli.Env{Stdin: hookgate.Stdin(), Stdout: os.Stdout, Stderr: os.Stderr}))
		},
	})
}

// TestScript runs the end-to-end scenarios in testdata/script: one file per
// behaviour, named after the subcommand it exercises. Each runs in a fresh
// directory with its own HOME and git identity, against the real git binary.
func TestScript(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("HOME", e.WorkDir)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			e.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			e.Setenv("REPO_ROOT", root)
			e.Setenv("CAIRN_DIR", "")
			e.Setenv("CAIRN_NO_BACKGROUND", "1")
			gitconfig := "[user]\n\tname = Ana Tester\n\temail = ana@example.com\n[init]\n\tdefaultBranch = main\n"
			return os.WriteFile(filepath.Join(e.WorkDir, ".gitconfig"), []byte(gitconfig), 0o644)
		},
	})
}

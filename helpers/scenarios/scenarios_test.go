// Package scenarios holds cairn's end-to-end scenarios: one testscript
// file per behaviour in testdata/script, named after the subcommand it
// exercises, each running cairn (this test binary, as cli.Main) against
// the real git in a directory of its own. It has no code of its own; it
// is a package so that its test binary stays well inside go test's
// timeout on a loaded machine, apart from helpers/cairn's real-client
// tests.
package scenarios

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Hooks start background sanitize runs that would outlive a test and
	// write into its removed directory; the tests of that behaviour turn
	// it back on and wait for the run.
	os.Setenv("CAIRN_NO_BACKGROUND", "1")
	testscript.Main(testenv.Isolated(m), map[string]func(){
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
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exitcode": exitCode, "printed": printed},
		Setup: func(e *testscript.Env) error {
			for _, kv := range testenv.Home(e.WorkDir) {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			e.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			e.Setenv("GIT_AUTHOR_DATE", "2026-01-02T03:04:05Z")
			e.Setenv("GIT_COMMITTER_DATE", "2026-01-02T03:04:05Z")
			e.Setenv("REPO_ROOT", root)
			e.Setenv("CAIRN_DIR", "")
			e.Setenv("CAIRN_NO_BACKGROUND", "1")
			// Times for people are local (package when): the scenarios'
			// expectations are written in UTC.
			e.Setenv("TZ", "UTC")
			// Under -race, cairn here is the race-built test binary: a race
			// it finds exits 66, which `! exec` would take for the failure
			// expected. Its reports go to files instead, and any fails the
			// script. (Without -race, GORACE is ignored.)
			race := filepath.Join(e.WorkDir, ".gorace")
			e.Setenv("GORACE", "log_path="+race)
			e.Defer(func() {
				reports, _ := filepath.Glob(race + ".*")
				for _, r := range reports {
					b, _ := os.ReadFile(r)
					e.T().Fatal("data race in a cairn process:\n" + string(b))
				}
			})
			gitconfig := "[user]\n\tname = Ana Tester\n\temail = ana@example.com\n[init]\n\tdefaultBranch = main\n"
			return os.WriteFile(filepath.Join(e.WorkDir, ".gitconfig"), []byte(gitconfig), 0o644)
		},
	})
}

// exitCode is the script command
//
//	exitcode N PROGRAM [ARGS...]
//
// which runs PROGRAM as exec does (stdout and stderr then match its
// output) and fails unless it exits with status N: `! exec` only tells
// zero from non-zero, and cairn's 64 (a wrong command line) must not be
// confused with 1 (a failure).
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode (give the status expected)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: status %q is not a number", args[0])
	}
	got := 0
	var ee *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case err == nil:
	case errors.As(err, &ee):
		got = ee.ExitCode()
	default:
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d; want %d", args[1], got, want)
	}
}

// printed is the script command
//
//	printed REGEXP
//
// which runs, as the person would paste it into a shell (sh -c, in the
// script's directory, with its environment), the command cairn printed:
// the first submatch of the first line of the last command's stdout that
// REGEXP matches. It fails when no line matches or the command fails, so
// that a scenario proves a printed command works as printed.
func printed(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! printed")
	}
	if len(args) != 1 {
		ts.Fatalf("usage: printed REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil || re.NumSubexp() < 1 {
		ts.Fatalf("printed: %q is not a regexp with a submatch (%v)", args[0], err)
	}
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("printed: no line of stdout matches %q", args[0])
	}
	ts.Logf("running the printed command: %s", m[1])
	if err := ts.Exec("sh", "-c", m[1]); err != nil {
		ts.Fatalf("the printed command %q failed: %v\n%s", m[1], err, ts.ReadFile("stderr"))
	}
}

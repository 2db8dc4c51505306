// Package testenv keeps the test suite out of the person's own cairn. It
// is the one place that says what a test process's HOME and XDG base
// directories are: [Main] gives every test binary fresh ones before any
// test runs (so every process a test starts inherits them, whatever
// environment it builds), and [Home] names the ones a test gives a child
// of its own. Go's, npm's and the real-client installs' caches stay the
// person's, so nothing is built or downloaded twice.
//
// It imports nothing of cairn's, so any package's tests may use it.
package testenv

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ToolsEnv names the directory where the tests install the real agent CLIs
// they run (default <the person's user cache>/cairn); [Main] sets it before
// it moves HOME, so installs land in the person's cache, once.
const ToolsEnv = "CAIRN_TEST_TOOLS"

// Home returns the HOME and XDG base directory variables of a child whose
// home is dir: HOME=dir, XDG_CONFIG_HOME=dir/.config,
// XDG_DATA_HOME=dir/.local/share, XDG_STATE_HOME=dir/.local/state and
// XDG_CACHE_HOME=dir/.cache. Append it after the rest of an environment:
// the last value of a variable wins.
func Home(dir string) []string {
	return []string{
		"HOME=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, ".cache"),
	}
}

// Tools returns the directory that holds the real agent CLIs the tests
// install ($CAIRN_TEST_TOOLS, else <user cache>/cairn).
func Tools() (string, error) {
	if d := os.Getenv(ToolsEnv); d != "" {
		return d, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "cairn"), nil
}

// Main runs a package's tests with a fresh HOME and XDG base directories
// (see [Home]) in the test process's own environment, and exits with their
// status. Before it moves HOME it pins what must stay the person's: Go's
// build and module caches and its env file, npm's cache and config, and
// [ToolsEnv]. After the tests it fails the run if any file under the
// person's own cairn directories ($XDG_CONFIG_HOME/cairn,
// $XDG_STATE_HOME/cairn, $XDG_DATA_HOME/cairn) was written during it and
// names the tests' temporary directory: a test that reached them. It unsets
// the variables by which a coding agent's tools announce it, so tests an
// agent runs see a person's shell.
//
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { testenv.Main(m) }
func Main(m *testing.M) {
	os.Exit(Isolated(m).Run())
}

// M is what runs a package's tests: *testing.M, or what wraps it.
type M interface{ Run() int }

// Isolated returns m with the isolation of [Main], for a TestMain that
// hands m to another runner (testscript.Main).
func Isolated(m M) M { return isolated{m} }

type isolated struct{ m M }

func (i isolated) Run() int { return run(i.m.Run, personDirs()) }

// run runs tests isolated, guarding the person's directories real.
func run(tests func() int, real []string) int {
	home, err := os.MkdirTemp("", "cairn-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	defer os.RemoveAll(home)
	before := snapshot(real)
	if err := pin(); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	for _, k := range agentEnv {
		os.Unsetenv(k)
	}
	for _, kv := range Home(home) {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
		if err := os.MkdirAll(v, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "testenv:", err)
			return 1
		}
	}
	code := tests()
	if leaks := leaked(before, snapshot(real), []string{os.TempDir(), home}); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "testenv: the tests wrote into the person's own cairn directories:\n\t%s\n", strings.Join(leaks, "\n\t"))
		return 1
	}
	return code
}

// agentEnv are the variables by which a coding agent's tools tell cairn add
// that an agent runs it (see agent.Adapter's Caller): tests run by an
// agent (go test from its shell tool) must still see a person's shell.
var agentEnv = []string{
	"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT",
	"CODEX_THREAD_ID", "CODEX_SANDBOX",
	"GEMINI_CLI", "GEMINI_SESSION_ID",
	"OPENCODE", "CAIRN_OPENCODE_SESSION",
	"CURSOR_AGENT",
}

// pin sets, from the environment as it is now, the variables that keep
// Go's caches and telemetry, npm's cache and the tools' cache where they
// are once HOME moves.
func pin() error {
	if _, err := exec.LookPath("go"); err == nil {
		out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
		if err != nil {
			return fmt.Errorf("go env: %w", err)
		}
		vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
			if i < len(vals) && os.Getenv(k) == "" && vals[i] != "" {
				os.Setenv(k, vals[i])
			}
		}
	}
	// The go command keeps its telemetry under the user's config directory,
	// and a detached child of it writes there after the command exits:
	// under a test's HOME, after the home is removed. The variable is the
	// go command's own for its tests' telemetry directory.
	if cfg, err := os.UserConfigDir(); err == nil && os.Getenv("TEST_TELEMETRY_DIR") == "" {
		os.Setenv("TEST_TELEMETRY_DIR", filepath.Join(cfg, "go", "telemetry"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		if os.Getenv("npm_config_cache") == "" && os.Getenv("NPM_CONFIG_CACHE") == "" {
			os.Setenv("npm_config_cache", filepath.Join(home, ".npm"))
		}
		if os.Getenv("npm_config_userconfig") == "" && os.Getenv("NPM_CONFIG_USERCONFIG") == "" {
			os.Setenv("npm_config_userconfig", filepath.Join(home, ".npmrc"))
		}
	}
	tools, err := Tools()
	if err != nil {
		return fmt.Errorf("the tools' cache: %w", err)
	}
	return os.Setenv(ToolsEnv, tools)
}

// personDirs are the person's own cairn directories, as cairn finds them
// (the rule of userconf.UserDirs, written again here: testenv imports nothing
// of cairn's, since fsx's own tests import it and userconf imports fsx).
func personDirs() []string {
	home, _ := os.UserHomeDir()
	base := func(env, def string) string {
		if d := os.Getenv(env); d != "" && filepath.IsAbs(d) {
			return filepath.Join(d, "cairn")
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, def, "cairn")
	}
	return []string{base("XDG_CONFIG_HOME", ".config"), base("XDG_STATE_HOME", filepath.Join(".local", "state")),
		base("XDG_DATA_HOME", filepath.Join(".local", "share"))}
}

// file is what a snapshot keeps of one file.
type file struct {
	size  int64
	mtime int64
}

// snapshot lists the regular files under dirs with their size and time.
func snapshot(dirs []string) map[string]file {
	out := map[string]file{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			if info, err := e.Info(); err == nil {
				out[path] = file{info.Size(), info.ModTime().UnixNano()}
			}
			return nil
		})
	}
	return out
}

// leaked returns the files new or changed between two snapshots whose
// contents name one of marks (the tests' temporary directories): the
// person's own use of cairn while the tests ran changes files too, but
// never names a test's directory.
func leaked(before, after map[string]file, marks []string) []string {
	var out []string
	for path, f := range after {
		if b, ok := before[path]; ok && b == f {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		for _, m := range marks {
			if m != "" && bytes.Contains(data, []byte(m)) {
				out = append(out, path)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

package geminitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Version is the Gemini CLI version these helpers are verified against.
const Version = "0.61.0"

// Package is the CLI's npm package.
const Package = "@google/gemini-cli"

// InstallCommand is the npm command that installs the pinned CLI into DIR;
// the CLI is then found via CAIRN_GEMINI_PREFIX=DIR.
const InstallCommand = "npm install --prefix DIR " + Package + "@" + Version

// Model is the model the CLI is told to use (model.name in its user
// settings): a fixed model, so the CLI's router asks no classifier first.
const Model = "gemini-2.5-flash"

// APIKey is the GEMINI_API_KEY of every run.
const APIKey = "geminitest-key"

// DefaultTimeout bounds one Run when RunOptions.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// scriptInPrefix returns the CLI's entry script inside an npm prefix (a
// Node script that runs with the node on PATH; the package needs Node 20
// or newer).
func scriptInPrefix(prefix string) string {
	return filepath.Join(prefix, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")
}

var versions clitest.VersionCache

// cliVersion runs "CLI --version" once per path, with a scratch HOME, and
// returns the version it prints ("" on failure).
func cliVersion(cli string) string {
	return versions.Get(cli, func(cli string) string {
		home, err := os.MkdirTemp("", "geminitest-version-")
		if err != nil {
			return ""
		}
		defer os.RemoveAll(home)
		out, err := clitest.RunVersion(cli, childEnv(os.Environ(), testenv.Home(home)), 60*time.Second)
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			return f[len(f)-1]
		}
		return ""
	})
}

// npmPackage is where FindCLI looks for the pinned CLI, and how it
// installs it. The CLI is a script (run with the node on PATH), so a
// regular file will do.
var npmPackage = clitest.NPM{
	Harness: "geminitest", Name: "Gemini CLI", Spec: Package + "@" + Version, Version: Version,
	CacheDir: "gemini-cli-" + Version, NoInstallEnv: "CAIRN_GEMINI_NO_INSTALL", Took: "about 10 s",
	BinEnv: "CAIRN_GEMINI_BIN", BinHint: "bundle/gemini.js", PrefixEnv: "CAIRN_GEMINI_PREFIX", Command: "gemini",
	Binaries:  func(prefix string) []string { return []string{scriptInPrefix(prefix)} },
	Usable:    clitest.IsFile,
	VersionOf: cliVersion,
}

// FindCLI returns the path of the Gemini CLI's entry script (run it as a
// program: its first line runs node), found as clitest.NPM.Find finds it:
// $CAIRN_GEMINI_BIN as is (a file), else the script in the npm prefix
// $CAIRN_GEMINI_PREFIX, else "gemini" on PATH, each if it reports Version,
// else an install into the user's cache (CAIRN_GEMINI_NO_INSTALL=1 turns
// it off). If none is found the test is skipped, naming InstallCommand;
// when CI is "true" it fails instead.
func FindCLI(t testing.TB) string {
	t.Helper()
	return npmPackage.Find(t)
}

// RunOptions configures one run of the CLI.
type RunOptions struct {
	// CLI is the CLI to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to. Required unless BaseURL is set.
	API *FakeAPI
	// BaseURL overrides API.URL() as GOOGLE_GEMINI_BASE_URL.
	BaseURL string
	// Dir is the working directory (the project repository); empty means a
	// fresh t.TempDir().
	Dir string
	// Home is the HOME of the run; empty means a fresh t.TempDir(). Its
	// .gemini/settings.json and trustedFolders.json are written by Run
	// (see SeedHome).
	Home string
	// Prompt is the user prompt, passed as "--prompt PROMPT".
	Prompt string
	// Untrusted leaves Dir out of the trusted folders: Gemini CLI then
	// ignores the project's .gemini/settings.json (and runs none of its
	// hooks).
	Untrusted bool
	// Args are appended to the command line; "--approval-mode yolo" comes
	// before them, so that the shell tool runs without asking.
	Args []string
	// Env holds extra "KEY=VALUE" entries for the child environment; they
	// are applied last and override everything else.
	Env []string
	// Timeout bounds the run (DefaultTimeout when zero). A run that times
	// out fails the test.
	Timeout time.Duration
}

// Result is the outcome of one CLI run.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
	Duration time.Duration
	Home     string
	Dir      string
	// Args is the argument list the CLI was started with (without argv[0]).
	Args []string
}

// withRan returns r with ran's output, exit code and duration.
func (r Result) withRan(ran clitest.Ran) Result {
	r.Stdout, r.Stderr, r.ExitCode, r.Duration = ran.Stdout, ran.Stderr, ran.ExitCode, ran.Duration
	return r
}

// String summarises the run for test failure messages.
func (r Result) String() string {
	return fmt.Sprintf("gemini %s\nexit code: %d (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// leakyEnv reports whether an environment variable must not reach the
// child: anything that could tie it to a real account, project or outer
// session, and the marks of a CI machine (with CI=true, Gemini CLI takes
// itself for headless and the interactive UI never starts).
func leakyEnv(key string) bool {
	up := strings.ToUpper(key)
	switch {
	case strings.HasPrefix(up, "GEMINI_"), // GEMINI_API_KEY, GEMINI_CLI_*, GEMINI_MODEL, ...
		strings.HasPrefix(up, "GOOGLE_"), // GOOGLE_API_KEY, GOOGLE_CLOUD_PROJECT, GOOGLE_APPLICATION_CREDENTIALS, ...
		strings.HasPrefix(up, "CAIRN_GEMINI_"),
		strings.HasPrefix(up, "OTEL_"),
		up == "CLOUD_SHELL", up == "SANDBOX", up == "SEATBELT_PROFILE",
		up == "CI", strings.HasPrefix(up, "CI_"), up == "CONTINUOUS_INTEGRATION", up == "BUILD_NUMBER",
		up == "RUN_ID", up == "GITHUB_ACTIONS":
		return true
	}
	return false
}

// quietEnv keeps the CLI offline apart from the fake, with the settings
// SeedHome writes: no telemetry, no usage statistics, no update check.
var quietEnv = []string{
	"GEMINI_TELEMETRY_ENABLED=false",
	"NO_PROXY=127.0.0.1,localhost",
	"NO_BROWSER=true",
}

// childEnv returns base without leaky variables, plus quietEnv and extra
// (later entries win).
func childEnv(base, extra []string) []string {
	return clitest.ChildEnv(base, leakyEnv, slices.Concat(quietEnv, extra)...)
}

// userSettings are the user settings ($HOME/.gemini/settings.json) of
// every run: API-key auth (the key and the base URL come from the
// environment), a fixed model, and everything that would reach the
// network or ask a question off.
var userSettings = map[string]any{
	"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	"model":    map[string]any{"name": Model, "skipNextSpeakerCheck": true},
	"privacy":  map[string]any{"usageStatisticsEnabled": false},
	"telemetry": map[string]any{
		"enabled": false,
	},
	"general": map[string]any{
		"enableAutoUpdate":             false,
		"enableAutoUpdateNotification": false,
	},
	"ide": map[string]any{"enabled": false, "hasSeenNudge": true},
	"ui":  map[string]any{"hideTips": true, "hideBanner": true},
}

// SeedHome writes the CLI's user settings into home (API-key auth, Model,
// telemetry, usage statistics and update checks off) and, unless dir is
// empty, marks dir a trusted folder ($HOME/.gemini/trustedFolders.json):
// Gemini CLI 0.61.0 has folder trust on by default and reads a project's
// .gemini/settings.json, hooks included, only in a trusted folder.
func SeedHome(home, dir string) error {
	gdir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(gdir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(userSettings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(gdir, "settings.json"), b, 0o644); err != nil {
		return err
	}
	trusted := map[string]string{}
	path := filepath.Join(gdir, "trustedFolders.json")
	if cur, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(cur, &trusted)
	}
	if dir != "" {
		trusted[dir] = "TRUST_FOLDER"
	}
	b, err = json.MarshalIndent(trusted, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Run runs the CLI once, headless ("--prompt PROMPT --approval-mode
// yolo"), isolated: a HOME seeded by SeedHome (a fresh one unless
// opts.Home), the working directory opts.Dir, GEMINI_API_KEY=APIKey and
// GOOGLE_GEMINI_BASE_URL pointing at the fake. The child environment is
// the test's minus every GEMINI_*, GOOGLE_*, CAIRN_GEMINI_* and OTEL_*
// variable and the proxy variables, plus GEMINI_TELEMETRY_ENABLED=false,
// NO_BROWSER=true and NO_PROXY=127.0.0.1,localhost, then opts.Env. Stdin
// is empty.
//
// Run fails the test if the CLI cannot be started or does not finish
// within the timeout (the CLI and everything it spawned are killed); a
// non-zero exit is only reported in Result.ExitCode.
func Run(t testing.TB, opts RunOptions) Result {
	t.Helper()
	cli := opts.CLI
	if cli == "" {
		cli = FindCLI(t)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		if opts.API == nil {
			t.Fatalf("geminitest: RunOptions needs API or BaseURL")
		}
		baseURL = opts.API.URL()
	}
	res := Result{Home: opts.Home, Dir: opts.Dir}
	if res.Home == "" {
		res.Home = t.TempDir()
	}
	if res.Dir == "" {
		res.Dir = t.TempDir()
	}
	trust := res.Dir
	if opts.Untrusted {
		trust = ""
	}
	if err := SeedHome(res.Home, trust); err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	args := append([]string{"--prompt", opts.Prompt, "--approval-mode", "yolo"}, opts.Args...)
	res.Args = args

	ran := clitest.Command{
		Harness: "geminitest", Bin: cli, Args: res.Args, Dir: res.Dir,
		Env: childEnv(os.Environ(), append(append(testenv.Home(res.Home),
			"GEMINI_API_KEY="+APIKey,
			"GOOGLE_GEMINI_BASE_URL="+baseURL,
		), opts.Env...)),
		Timeout: timeout,
	}.Run(t, func(ran clitest.Ran) string { return res.withRan(ran).String() })
	return res.withRan(ran)
}

// NewGitRepo creates a git repository with one empty commit on branch
// "main" in a fresh t.TempDir() and returns its path. Git's global and
// system configuration are ignored.
func NewGitRepo(t testing.TB) string {
	t.Helper()
	return clitest.NewGitRepo(t, "geminitest")
}

package codextest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Version is the Codex CLI version these helpers are verified against.
const Version = "0.169.0"

// Package is the npm package of the CLI, pinned.
const Package = "@openai/codex@" + Version

// InstallCommand is the npm command that installs the pinned CLI into DIR;
// the binary is then found via CAIRN_CODEX_PREFIX=DIR.
const InstallCommand = "npm install --prefix DIR " + Package

// DefaultTimeout bounds one Run when RunOptions.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// APIKey is the model provider's key every run gets (in KeyEnv).
const APIKey = "codextest-key"

// KeyEnv is the variable the fake's model provider reads its key from.
const KeyEnv = "CAIRN_CODEX_FAKE_KEY"

// target is the Rust target triple of the native binary npm installs for
// this machine, and the npm platform package that holds it.
func target() (triple, pkg string) {
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	npmArch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	switch runtime.GOOS {
	case "linux":
		return arch + "-unknown-linux-musl", "codex-linux-" + npmArch
	case "darwin":
		return arch + "-apple-darwin", "codex-darwin-" + npmArch
	}
	return "", ""
}

// BinaryInPrefix returns the path of the native CLI binary inside an npm
// install prefix: @openai/codex installs it through its platform package
// (an npm alias, e.g. @openai/codex-linux-x64), under
// vendor/<target>/bin/codex.
func BinaryInPrefix(prefix string) string {
	triple, pkg := target()
	return filepath.Join(prefix, "node_modules", "@openai", pkg, "vendor", triple, "bin", "codex")
}

var versions clitest.VersionCache

// cliVersion runs "BIN --version" once per path, with a scratch HOME and
// CODEX_HOME, and returns the version it prints ("codex-cli 0.169.0"
// gives "0.169.0"; "" on failure).
func cliVersion(bin string) string {
	return versions.Get(bin, func(bin string) string {
		home, err := os.MkdirTemp("", "codextest-version-")
		if err != nil {
			return ""
		}
		defer os.RemoveAll(home)
		out, _ := clitest.RunVersion(bin, childEnv(os.Environ(), append(testenv.Home(home), "CODEX_HOME="+home)), 30*time.Second)
		if f := strings.Fields(out); len(f) == 2 && f[0] == "codex-cli" {
			return f[1]
		}
		return ""
	})
}

// npmPackage is where FindCLI looks for the pinned CLI, and how it
// installs it.
var npmPackage = clitest.NPM{
	Harness: "codextest", Name: "Codex CLI", Spec: Package, Version: Version,
	CacheDir: "codex-" + Version, NoInstallEnv: "CAIRN_CODEX_NO_INSTALL", Took: "about 30 s",
	BinEnv: "CAIRN_CODEX_BIN", PrefixEnv: "CAIRN_CODEX_PREFIX", Command: "codex",
	Binaries:  func(prefix string) []string { return []string{BinaryInPrefix(prefix)} },
	VersionOf: cliVersion,
}

// FindCLI returns the path of the Codex CLI's native binary, found as
// clitest.NPM.Find finds it: $CAIRN_CODEX_BIN as is, else the binary in
// the npm prefix $CAIRN_CODEX_PREFIX, else "codex" on PATH, each if it
// reports Version, else an install into the user's cache
// (CAIRN_CODEX_NO_INSTALL=1 turns it off). If none is found the test is
// skipped, naming InstallCommand; when CI is "true" it fails instead.
func FindCLI(t testing.TB) string {
	t.Helper()
	return npmPackage.Find(t)
}

// Config is what WriteConfig writes into a CODEX_HOME's config.toml.
type Config struct {
	// BaseURL is the fake's API (FakeAPI.URL).
	BaseURL string
	// Trusted are project directories Codex trusts (their .codex/ config,
	// hooks included, is loaded); each is written as given and, when it
	// differs, with its links resolved.
	Trusted []string
	// Extra is TOML appended as is (tables, e.g. [hooks.state."..."]).
	Extra string
}

// Model is the model name the config asks for; the fake answers any.
const Model = "codextest-model"

// WriteConfig writes codexHome/config.toml: the model provider "codextest"
// at cfg.BaseURL (Responses API, key from KeyEnv, no retries), approvals
// never and no sandbox (a shell command runs without asking), no update
// check, no analytics, no plugin sync (it reaches GitHub), no start-up
// tips (the interactive UI fetches them from GitHub), no background
// daemon, then the trusted projects and cfg.Extra. Observed with strace on
// 0.169.0: `codex exec` and the interactive UI so configured resolve no
// name and connect to nothing but the fake.
func WriteConfig(codexHome string, cfg Config) error {
	var b strings.Builder
	fmt.Fprintf(&b, `model = %q
model_provider = "codextest"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[features]
plugins = false
daemon_auto_start = false

[analytics]
enabled = false

[tui]
show_tooltips = false

[model_providers.codextest]
name = "codextest"
base_url = %q
wire_api = "responses"
env_key = %q
request_max_retries = 0
stream_max_retries = 0
`, Model, cfg.BaseURL, KeyEnv)
	seen := map[string]bool{}
	for _, d := range cfg.Trusted {
		for _, p := range []string{d, realPath(d)} {
			if !seen[p] {
				seen[p] = true
				fmt.Fprintf(&b, "\n[projects.%q]\ntrust_level = \"trusted\"\n", p)
			}
		}
	}
	if cfg.Extra != "" {
		b.WriteString("\n" + cfg.Extra + "\n")
	}
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(b.String()), 0o600)
}

// realPath is path with its links resolved, or path.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// RunOptions configures one `codex exec` run.
type RunOptions struct {
	// CLI is the binary to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to (required).
	API *FakeAPI
	// Dir is the working directory (the project repository); empty means
	// a fresh t.TempDir().
	Dir string
	// Home is the HOME of the run, and Home/.codex its CODEX_HOME; empty
	// means a fresh t.TempDir(). Reuse one to keep Codex's state (trust,
	// sessions).
	Home string
	// Prompt is the prompt, passed as the argument of exec.
	Prompt string
	// TrustProject writes Dir as a trusted project, so Codex loads its
	// .codex/ (hooks included).
	TrustProject bool
	// ConfigExtra is TOML appended to the config (see Config.Extra).
	ConfigExtra string
	// KeepConfig leaves an existing Home/.codex/config.toml as it is
	// instead of writing one.
	KeepConfig bool
	// Args are added after "exec" (and before the prompt).
	Args []string
	// Env holds extra "KEY=VALUE" entries for the child environment,
	// applied last.
	Env []string
	// Timeout bounds the run (DefaultTimeout when zero).
	Timeout time.Duration
}

// Result is the outcome of one run.
type Result struct {
	Stdout   string // the CLI's standard output (the final message)
	Stderr   string // the CLI's progress, hook lines and warnings
	ExitCode int
	Duration time.Duration
	Home     string // HOME of the run; CODEX_HOME is Home/.codex
	Dir      string
	Args     []string // without argv[0]
}

// CodexHome is the run's CODEX_HOME.
func (r Result) CodexHome() string { return filepath.Join(r.Home, ".codex") }

// RolloutPaths returns the session rollouts (transcripts) the run left
// under CODEX_HOME/sessions, sorted.
func (r Result) RolloutPaths() []string { return rolloutPaths(r.CodexHome()) }

func rolloutPaths(codexHome string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// withRan returns r with ran's output, exit code and duration.
func (r Result) withRan(ran clitest.Ran) Result {
	r.Stdout, r.Stderr, r.ExitCode, r.Duration = ran.Stdout, ran.Stderr, ran.ExitCode, ran.Duration
	return r
}

// String summarises the run for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("codex %s\nexit code: %d (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// leakyEnv reports whether a variable must not reach the child: anything
// that could tie it to a real account, another Codex home or session, and
// proxies (the fake is on loopback).
func leakyEnv(key string) bool {
	up := strings.ToUpper(key)
	switch {
	case strings.HasPrefix(up, "OPENAI_"), strings.HasPrefix(up, "CODEX_"),
		strings.HasPrefix(up, "CAIRN_CODEX_"), strings.HasPrefix(up, "AZURE_OPENAI"):
		return true
	}
	return false
}

// childEnv returns base without leaky variables, plus NO_PROXY for
// loopback and extra (later entries win).
func childEnv(base, extra []string) []string {
	return clitest.ChildEnv(base, leakyEnv, append([]string{KeyEnv + "=" + APIKey}, extra...)...)
}

// Env is an environment for a process that runs the CLI with home as its
// HOME (home/.codex its CODEX_HOME): this process's environment without
// the variables that could reach a real account, with the fake's key, and
// extra last.
func Env(home string, extra ...string) []string {
	return childEnv(os.Environ(), append(append(testenv.Home(home), "CODEX_HOME="+filepath.Join(home, ".codex")), extra...))
}

// Run runs `codex exec PROMPT` once, isolated: HOME opts.Home (a fresh one
// by default) with its config written by WriteConfig (unless
// opts.KeepConfig), the working directory opts.Dir, stdin empty, and the
// environment of Env, the fake as its proxy (FakeAPI.ProxyEnv) and
// opts.Env. Run fails the test if the CLI cannot
// be started or does not finish within the timeout (the CLI and
// everything it spawned are killed); a non-zero exit is only reported in
// Result.ExitCode.
func Run(t testing.TB, opts RunOptions) Result {
	t.Helper()
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	if opts.API == nil {
		t.Fatalf("codextest: RunOptions needs API")
	}
	res := Result{Home: opts.Home, Dir: opts.Dir}
	if res.Home == "" {
		res.Home = t.TempDir()
	}
	if res.Dir == "" {
		res.Dir = t.TempDir()
	}
	if !opts.KeepConfig {
		cfg := Config{BaseURL: opts.API.URL(), Extra: opts.ConfigExtra}
		if opts.TrustProject {
			cfg.Trusted = []string{res.Dir}
		}
		if err := WriteConfig(res.CodexHome(), cfg); err != nil {
			t.Fatalf("codextest: %v", err)
		}
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	res.Args = append(append([]string{"exec", "--color", "never"}, opts.Args...), "--", opts.Prompt)

	ran := clitest.Command{
		Harness: "codextest", Bin: bin, Args: res.Args, Dir: res.Dir,
		Env:     append(append(Env(res.Home), opts.API.ProxyEnv()...), opts.Env...),
		Stdin:   strings.NewReader(""),
		Timeout: timeout,
	}.Run(t, func(ran clitest.Ran) string { return res.withRan(ran).String() })
	return res.withRan(ran)
}

// NewGitRepo creates a git repository with one empty commit on branch
// "main" in a fresh t.TempDir() and returns its path. Git's global and
// system configuration are ignored.
func NewGitRepo(t testing.TB) string {
	t.Helper()
	return clitest.NewGitRepo(t, "codextest")
}

package opencodetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Version is the OpenCode version these helpers are verified against.
const Version = "1.18.33"

// InstallCommand is the npm command that installs the pinned CLI into DIR;
// it is then found via CAIRN_OPENCODE_PREFIX=DIR.
const InstallCommand = "npm install --prefix DIR opencode-ai@" + Version

// DefaultTimeout bounds one Run when RunOptions.Timeout is zero.
const DefaultTimeout = 180 * time.Second

// Provider and Model are the provider and model the runs are configured
// with (Model as OpenCode names it: provider/model).
const (
	Provider = "cairnfake"
	Model    = Provider + "/fake"
)

// binariesInPrefix returns the CLI binaries an npm install prefix may
// hold, best first: the one opencode-ai's install script picked for this
// machine, then the platform packages' own.
func binariesInPrefix(prefix string) []string {
	osName, arch, exe := runtime.GOOS, runtime.GOARCH, ""
	switch osName {
	case "windows":
		exe = ".exe"
	}
	if arch == "amd64" {
		arch = "x64"
	}
	nm := filepath.Join(prefix, "node_modules")
	out := []string{filepath.Join(nm, "opencode-ai", "bin", "opencode.exe")}
	for _, variant := range []string{"", "-baseline", "-musl", "-baseline-musl"} {
		out = append(out, filepath.Join(nm, "opencode-"+osName+"-"+arch+variant, "bin", "opencode"+exe))
	}
	return out
}

var versions clitest.VersionCache

// cliVersion runs "BIN --version" once per path and returns the version it
// prints ("" on failure).
func cliVersion(bin string) string {
	return versions.Get(bin, func(bin string) string {
		// Even --version makes OpenCode's directories under HOME: a
		// scratch one, never the user's.
		home, err := os.MkdirTemp("", "opencodetest-version-")
		if err != nil {
			return ""
		}
		defer os.RemoveAll(home)
		out, err := clitest.RunVersion(bin, childEnv(os.Environ(), testenv.Home(home)), 60*time.Second)
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			return f[len(f)-1]
		}
		return ""
	})
}

// npmPackage is where FindCLI looks for the pinned CLI, and how it
// installs it.
var npmPackage = clitest.NPM{
	Harness: "opencodetest", Name: "OpenCode", Spec: "opencode-ai@" + Version, Version: Version,
	CacheDir: "opencode-" + Version, NoInstallEnv: "CAIRN_OPENCODE_NO_INSTALL", Took: "about 20 s",
	BinEnv: "CAIRN_OPENCODE_BIN", PrefixEnv: "CAIRN_OPENCODE_PREFIX", Command: "opencode",
	Binaries:  binariesInPrefix,
	VersionOf: cliVersion,
}

// FindCLI returns the path of the OpenCode CLI binary, found as
// clitest.NPM.Find finds it: $CAIRN_OPENCODE_BIN as is, else a binary in
// the npm prefix $CAIRN_OPENCODE_PREFIX (see binariesInPrefix), else
// "opencode" on PATH, each if it reports Version, else an install into the
// user's cache (CAIRN_OPENCODE_NO_INSTALL=1 turns it off). If none is
// found the test is skipped, naming InstallCommand; when CI is "true" it
// fails instead.
func FindCLI(t testing.TB) string {
	t.Helper()
	return npmPackage.Find(t)
}

// RunOptions configures one `opencode run`.
type RunOptions struct {
	// CLI is the binary to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to (required).
	API *FakeAPI
	// Dir is the working directory (the project); empty means a fresh
	// t.TempDir().
	Dir string
	// Home is the HOME of the run; empty means a fresh t.TempDir().
	Home string
	// Prompt is the message sent.
	Prompt string
	// Args are appended to the command line.
	Args []string
	// Env holds extra "KEY=VALUE" entries for the child environment,
	// applied last.
	Env []string
	// Timeout bounds the run (DefaultTimeout when zero); a run that times
	// out fails the test.
	Timeout time.Duration
}

// Result is the outcome of one run.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
	Duration time.Duration
	Home     string
	Dir      string
	Args     []string
}

// withRan returns r with ran's output, exit code and duration.
func (r Result) withRan(ran clitest.Ran) Result {
	r.Stdout, r.Stderr, r.ExitCode, r.Duration = ran.Stdout, ran.Stderr, ran.ExitCode, ran.Duration
	return r
}

// String summarises the run for failure messages.
func (r Result) String() string {
	return fmt.Sprintf("opencode %s\nexit code: %d (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// leakyEnv reports whether a variable must not reach the child: anything
// that could point OpenCode at a real account, another configuration or a
// proxy (the fake is on loopback).
func leakyEnv(key string) bool {
	up := strings.ToUpper(key)
	switch {
	case strings.HasPrefix(up, "OPENCODE"),
		strings.HasPrefix(up, "CAIRN_OPENCODE_"),
		strings.HasPrefix(up, "OPENAI_"),
		strings.HasPrefix(up, "ANTHROPIC_"),
		strings.HasPrefix(up, "XDG_"):
		return true
	}
	return false
}

// quietEnv keeps OpenCode offline apart from the fake (checked with strace
// -e connect on 1.18.33: with these, and the dependency installs settled
// by Prepare, its only connections are to the fake): no models.dev
// catalogue fetch, no update check, no LSP downloads, no sharing, and
// nothing read from the user's Claude Code setup.
var quietEnv = []string{
	"OPENCODE_DISABLE_MODELS_FETCH=1",
	"OPENCODE_DISABLE_AUTOUPDATE=1",
	"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
	"OPENCODE_DISABLE_SHARE=1",
	"OPENCODE_DISABLE_CLAUDE_CODE=1",
	"NO_PROXY=127.0.0.1,localhost",
}

// childEnv returns base without leaky variables, plus quietEnv and extra
// (later entries win).
func childEnv(base, extra []string) []string {
	return clitest.ChildEnv(base, leakyEnv, slices.Concat(quietEnv, extra)...)
}

// config is OpenCode's configuration for a run: the fake as a custom
// OpenAI-compatible provider (the package is built into OpenCode, nothing
// is downloaded), every tool allowed, no sharing, no updates.
func config(api *FakeAPI) ([]byte, error) {
	model := map[string]any{"name": "Fake", "tool_call": true, "limit": map[string]any{"context": 200000, "output": 8000}}
	return json.MarshalIndent(map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"autoupdate":  false,
		"share":       "disabled",
		"model":       Model,
		"small_model": Model,
		"provider": map[string]any{Provider: map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "cairn fake",
			"options": map[string]any{"baseURL": api.URL(), "apiKey": "test"},
			"models":  map[string]any{"fake": model},
		}},
		"permission": map[string]any{"*": "allow"},
	}, "", "  ")
}

// settled is a package-lock.json that lists OpenCode's plugin SDK: with it
// and a node_modules directory, OpenCode 1.18.33 does not try to install
// @opencode-ai/plugin from the npm registry into a configuration
// directory (it does so in the background at every start, and offline the
// attempt holds startup for a minute before it fails).
const settled = `{"name":"opencodetest","lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"` + Version + `"}}}}` + "\n"

// Prepare makes a configuration directory of OpenCode's (the user's
// ~/.config/opencode, a project's .opencode) need no install from npm:
// an empty node_modules and a lock file that lists the plugin SDK.
// OpenCode's own .gitignore there leaves both out of git.
func Prepare(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(settled), 0o644)
}

// Run runs `opencode run PROMPT` once, isolated: a fresh HOME (unless
// opts.Home) with every XDG directory under it, the fake as the only
// provider (written to $XDG_CONFIG_HOME/opencode/opencode.json), the
// working directory opts.Dir. The child environment is the test's minus
// every OPENCODE*, CAIRN_OPENCODE_*, OPENAI_*, ANTHROPIC_*, XDG_* and proxy
// variable, plus quietEnv, PWD (OpenCode's directory is PWD, not its
// working directory), then opts.Env. The configuration directories
// (the user's and the project's .opencode, if there is one) are Prepared.
//
// Run fails the test if the CLI cannot be started or does not finish in
// time (it and everything it spawned are killed); a non-zero exit is only
// reported in Result.ExitCode.
func Run(t testing.TB, opts RunOptions) Result {
	t.Helper()
	if opts.API == nil {
		t.Fatalf("opencodetest: RunOptions needs API")
	}
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	res := Result{Home: opts.Home, Dir: opts.Dir}
	if res.Home == "" {
		res.Home = t.TempDir()
	}
	if res.Dir == "" {
		res.Dir = t.TempDir()
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	cfgDir := filepath.Join(res.Home, ".config", "opencode")
	cfg, err := config(opts.API)
	if err == nil {
		err = os.MkdirAll(cfgDir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(cfgDir, "opencode.json"), cfg, 0o644)
	}
	if err == nil {
		err = Prepare(cfgDir)
	}
	if fi, serr := os.Stat(filepath.Join(res.Dir, ".opencode")); err == nil && serr == nil && fi.IsDir() {
		err = Prepare(filepath.Join(res.Dir, ".opencode"))
	}
	if err != nil {
		t.Fatalf("opencodetest: configure: %v", err)
	}

	res.Args = append([]string{"run", "--print-logs", "--log-level", "INFO", opts.Prompt}, opts.Args...)
	ran := clitest.Command{
		Harness: "opencodetest", Bin: bin, Args: res.Args, Dir: res.Dir,
		// OpenCode takes its directory from PWD, not from its working
		// directory.
		Env:     childEnv(os.Environ(), append(append(testenv.Home(res.Home), "PWD="+res.Dir), opts.Env...)),
		Timeout: timeout,
	}.Run(t, func(ran clitest.Ran) string { return res.withRan(ran).String() })
	return res.withRan(ran)
}

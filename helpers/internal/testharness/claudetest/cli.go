package claudetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Version is the oldest Claude Code CLI version cairn supports, and the one
// FindCLI finds: every real-client test runs against it.
const Version = "2.1.197"

// LatestVersion is the newest Claude Code CLI version the tests run too
// (the newest the npm registry served when it was added): the core
// real-client tests and the MCP test run against each of Versions.
const LatestVersion = "2.1.330"

// Versions are the versions the core real-client tests run against, oldest
// first.
var Versions = []string{Version, LatestVersion}

// InstallCommand is the npm command that installs the pinned CLI into DIR;
// the binary is then found via CAIRN_CLAUDE_PREFIX=DIR.
const InstallCommand = "npm install --prefix DIR @anthropic-ai/claude-code@" + Version

// PrefixEnv is the environment variable naming the npm prefix that holds
// version (CAIRN_CLAUDE_PREFIX for Version, CAIRN_CLAUDE_LATEST_PREFIX for
// LatestVersion), as .ci/run sets them.
func PrefixEnv(version string) string {
	if version == LatestVersion && version != Version {
		return "CAIRN_CLAUDE_LATEST_PREFIX"
	}
	return "CAIRN_CLAUDE_PREFIX"
}

// DefaultTimeout bounds one Run when RunOptions.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// defaultPrefixes are npm prefixes searched when CAIRN_CLAUDE_PREFIX is unset
// or does not hold the CLI.
var defaultPrefixes = []string{"/opt/claude-cli"}

// platformPackage returns the npm platform package holding the native binary,
// e.g. "claude-code-linux-x64".
func platformPackage() string {
	arch := runtime.GOARCH
	switch arch {
	case "amd64":
		arch = "x64"
	}
	return "claude-code-" + runtime.GOOS + "-" + arch
}

// binaryInPrefix returns the path of the native CLI binary inside an npm
// install prefix.
func binaryInPrefix(prefix string) string {
	return filepath.Join(prefix, "node_modules", "@anthropic-ai", platformPackage(), "claude")
}

var versions clitest.VersionCache

// cliVersion runs "BIN --version" once per path and returns the version
// number it prints ("" on failure).
func cliVersion(bin string) string {
	return versions.Get(bin, func(bin string) string {
		out, err := clitest.RunVersion(bin, childEnv(os.Environ(), nil), 30*time.Second)
		if f := strings.Fields(out); err == nil && len(f) > 0 {
			return f[0]
		}
		return ""
	})
}

// npmPackage is where FindVersion looks for version, and how it installs
// it.
func npmPackage(version string) clitest.NPM {
	n := clitest.NPM{
		Harness: "claudetest", Name: "Claude Code CLI",
		Spec: "@anthropic-ai/claude-code@" + version, Version: version,
		CacheDir: "claude-code-" + version, NoInstallEnv: "CAIRN_CLAUDE_NO_INSTALL", Took: "about 30 s",
		PrefixEnv: PrefixEnv(version), Prefixes: defaultPrefixes, Command: "claude",
		Binaries:  func(prefix string) []string { return []string{binaryInPrefix(prefix)} },
		VersionOf: cliVersion,
	}
	if version == Version {
		n.BinEnv = "CAIRN_CLAUDE_BIN"
	}
	return n
}

// FindCLI returns the path of the Claude Code CLI binary of Version:
//
//  1. $CAIRN_CLAUDE_BIN if set (used as is; the test fails if it is not an
//     executable file);
//  2. the native binary inside the npm prefix $CAIRN_CLAUDE_PREFIX, then
//     inside /opt/claude-cli, if it reports Version;
//  3. "claude" on PATH if "claude --version" reports Version;
//  4. an install from the npm registry into the user's cache, when npm is
//     on PATH (CAIRN_CLAUDE_NO_INSTALL=1 turns it off).
//
// If none is found the test is skipped, naming InstallCommand; when the
// environment variable CI is "true" the test fails instead.
func FindCLI(t testing.TB) string {
	t.Helper()
	return FindVersion(t, Version)
}

// FindVersion returns the path of the Claude Code CLI binary of version
// (one of Versions), as FindCLI does for Version: $CAIRN_CLAUDE_BIN (for
// Version only), the native binary inside the npm prefix named by
// PrefixEnv(version), then inside /opt/claude-cli, then "claude" on PATH,
// each if it reports version, else an install from the npm registry into
// the user's cache. It skips or fails the test as FindCLI does.
func FindVersion(t testing.TB, version string) string {
	t.Helper()
	return npmPackage(version).Find(t)
}

// RunOptions configures one run of the CLI.
type RunOptions struct {
	// CLI is the binary to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to. Required unless BaseURL is set.
	API *FakeAPI
	// BaseURL overrides API.URL() as ANTHROPIC_BASE_URL.
	BaseURL string
	// Dir is the working directory (the project repository); empty means a
	// fresh t.TempDir().
	Dir string
	// Home is the HOME of the run; empty means a fresh t.TempDir(). Reuse one
	// Home across runs to keep ~/.claude state (sessions, installed plugins).
	Home string
	// Prompt is the user prompt, passed as "-p PROMPT".
	Prompt string
	// Turns, when not empty, runs the CLI in stream-json mode ("-p
	// --input-format stream-json --output-format stream-json --verbose") and
	// sends one user message per element; each is sent after the CLI
	// printed the {"type":"result"} event of the previous one, and stdin is
	// closed after the last result. Prompt, if also set, is sent as the
	// first turn. Args must not change --output-format in this mode.
	Turns []string
	// AllowedTools is passed as --allowedTools, comma-joined; nil means
	// []string{"Bash"}, an empty non-nil slice omits the flag.
	AllowedTools []string
	// PluginDirs are passed as --plugin-dir DIR each.
	PluginDirs []string
	// Args are appended to the command line.
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
	// Stdout is the CLI's standard output (stream-json lines in Turns mode).
	Stdout string
	// Stderr is the CLI's standard error.
	Stderr string
	// ExitCode is the CLI's exit status.
	ExitCode int
	// Duration is the wall time of the run.
	Duration time.Duration
	// Home is the HOME the run used.
	Home string
	// Dir is the working directory the run used.
	Dir string
	// Args is the argument list the CLI was started with (without argv[0]).
	Args []string
}

// TranscriptPaths returns the session transcripts the run left under
// Home/.claude/projects (main sessions and subagents), sorted.
func (r Result) TranscriptPaths() []string { return transcriptPaths(r.Home) }

// transcriptPaths returns the session transcripts under
// home/.claude/projects, sorted.
func transcriptPaths(home string) []string {
	var out []string
	root := filepath.Join(home, ".claude", "projects")
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// StreamEvents parses Stdout as stream-json (one JSON object per line) and
// returns the objects; lines that are not JSON objects are skipped.
func (r Result) StreamEvents() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(r.Stdout, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev != nil {
			out = append(out, ev)
		}
	}
	return out
}

// String summarises the run for test failure messages.
func (r Result) String() string {
	return fmt.Sprintf("claude %s\nexit code: %d (%v)\n--- stdout ---\n%s\n--- stderr ---\n%s",
		strings.Join(r.Args, " "), r.ExitCode, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// leakyEnv reports whether an environment variable must not reach the child:
// anything that could tie it to an outer Claude Code session or a real
// account, and proxies (the fake is on loopback).
func leakyEnv(key string) bool {
	up := strings.ToUpper(key)
	switch {
	case strings.HasPrefix(up, "CLAUDE"), // CLAUDECODE, CLAUDE_CODE_*, CLAUDE_CONFIG_DIR, ...
		strings.HasPrefix(up, "ANTHROPIC_"),
		strings.HasPrefix(up, "CAIRN_CLAUDE_"):
		return true
	}
	return false
}

// quietEnv keeps the CLI offline apart from the fake. Observed with strace on
// 2.1.197: without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC it resolves
// api.anthropic.com (telemetry and other non-essential calls) even with
// ANTHROPIC_BASE_URL set; DISABLE_TELEMETRY alone removes most but not all
// of those lookups. The other DISABLE_* variables are covered by the
// umbrella variable and kept for clarity.
var quietEnv = []string{
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_ERROR_REPORTING=1",
	"NO_PROXY=127.0.0.1,localhost",
}

// childEnv returns base without leaky variables, plus quietEnv and extra
// (later entries win).
func childEnv(base, extra []string) []string {
	return clitest.ChildEnv(base, leakyEnv, slices.Concat(quietEnv, extra)...)
}

// Run runs the CLI once, isolated: a fresh HOME (unless opts.Home), the
// working directory opts.Dir, ANTHROPIC_API_KEY=test and
// ANTHROPIC_BASE_URL pointing at the fake. The child environment is the
// test's minus every CLAUDE*, ANTHROPIC_* and CAIRN_CLAUDE_* variable and
// the proxy variables, plus CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
// DISABLE_AUTOUPDATER=1, DISABLE_TELEMETRY=1, DISABLE_ERROR_REPORTING=1 and
// NO_PROXY=127.0.0.1,localhost, then opts.Env. Stdin is empty unless
// opts.Turns is set.
//
// Run fails the test if the CLI cannot be started or does not finish within
// the timeout (the CLI and everything it spawned are killed); a non-zero
// exit is only reported in Result.ExitCode.
func Run(t testing.TB, opts RunOptions) Result {
	t.Helper()
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		if opts.API == nil {
			t.Fatalf("claudetest: RunOptions needs API or BaseURL")
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
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}

	turns := opts.Turns
	if len(turns) > 0 && opts.Prompt != "" {
		turns = append([]string{opts.Prompt}, turns...)
	}
	var args []string
	if len(turns) > 0 {
		args = append(args, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose")
	} else {
		args = append(args, "-p", opts.Prompt)
	}
	tools := opts.AllowedTools
	if tools == nil {
		tools = []string{"Bash"}
	}
	if len(tools) > 0 {
		args = append(args, "--allowedTools", strings.Join(tools, ","))
	}
	for _, d := range opts.PluginDirs {
		args = append(args, "--plugin-dir", d)
	}
	args = append(args, opts.Args...)
	res.Args = args

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = res.Dir
	cmd.Env = childEnv(os.Environ(), append(append(testenv.Home(res.Home),
		"ANTHROPIC_API_KEY=test",
		"ANTHROPIC_BASE_URL="+baseURL,
	), opts.Env...))
	clitest.SetProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second

	var stdout, stderr lockedBuffer
	cmd.Stderr = &stderr
	var stdin io.WriteCloser
	var results chan struct{}
	if len(turns) > 0 {
		var err error
		if stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatalf("claudetest: stdin pipe: %v", err)
		}
		outR, outW := io.Pipe()
		cmd.Stdout = outW
		results = make(chan struct{}, len(turns)+8)
		go scanResults(outR, &stdout, results)
		defer outW.Close()
	} else {
		cmd.Stdout = &stdout
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("claudetest: start %s: %v", bin, err)
	}
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()

	var err error
	if len(turns) > 0 {
		err = feedTurns(ctx, stdin, turns, results, waitErr)
	} else {
		err = <-waitErr
	}
	res.Duration = time.Since(start)
	if w, ok := cmd.Stdout.(*io.PipeWriter); ok {
		w.Close()
		// Let scanResults drain what is already buffered.
		stdout.waitDone(time.Second)
	}
	res.Stdout = stdout.String()
	res.Stderr = stderr.String()
	res.ExitCode = cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		t.Fatalf("claudetest: CLI did not finish within %v\n%s", timeout, res)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("claudetest: run %s: %v\n%s", bin, err, res)
	}
	return res
}

// feedTurns writes one stream-json user message per turn to stdin, each after
// the previous turn's result event, closes stdin after the last result, and
// returns the CLI's exit error.
func feedTurns(ctx context.Context, stdin io.WriteCloser, turns []string, results <-chan struct{}, waitErr <-chan error) error {
	for _, turn := range turns {
		line, _ := json.Marshal(map[string]any{
			"type":    "user",
			"message": map[string]any{"role": "user", "content": turn},
		})
		if _, err := stdin.Write(append(line, '\n')); err != nil {
			break // the CLI exited; its exit status tells why
		}
		select {
		case <-results:
			continue
		case err := <-waitErr:
			stdin.Close()
			return err
		case <-ctx.Done():
			stdin.Close()
			return <-waitErr
		}
	}
	stdin.Close()
	return <-waitErr
}

// scanResults copies stream-json lines from r into buf and signals results
// once per {"type":"result"} line.
func scanResults(r io.Reader, buf *lockedBuffer, results chan<- struct{}) {
	defer buf.markDone()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		buf.Write(append(line, '\n'))
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == "result" {
			select {
			case results <- struct{}{}:
			default:
			}
		}
	}
	io.Copy(io.Discard, r)
}

// lockedBuffer is a bytes.Buffer safe for concurrent use, with a done signal
// for the goroutine that fills it.
type lockedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
	done chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *lockedBuffer) doneCh() chan struct{} {
	b.once.Do(func() { b.done = make(chan struct{}) })
	return b.done
}

func (b *lockedBuffer) markDone() { close(b.doneCh()) }

func (b *lockedBuffer) waitDone(d time.Duration) {
	select {
	case <-b.doneCh():
	case <-time.After(d):
	}
}

// NewGitRepo creates a git repository with one empty commit on branch
// "main" in a fresh t.TempDir() and returns its path. Git's global and
// system configuration are ignored.
func NewGitRepo(t testing.TB) string {
	t.Helper()
	return clitest.NewGitRepo(t, "claudetest")
}

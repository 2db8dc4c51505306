package claudetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// DefaultInteractiveTimeout bounds each wait of an Interactive session
// (start, typing, requests, screen, exit) when InteractiveOptions.Timeout is
// zero. It is generous: the tests run in parallel on small, loaded machines.
const DefaultInteractiveTimeout = 90 * time.Second

// InteractiveAPIKey is the ANTHROPIC_API_KEY of interactive sessions. The
// interactive UI asks whether to use a key found in the environment unless
// its last 20 characters are approved in $HOME/.claude.json, which
// StartInteractive arranges.
const InteractiveAPIKey = "sk-ant-api03-claudetest-0123456789abcdefghij"

// Screen sizes of the tmux pane the interactive UI runs in.
const (
	interactiveWidth  = 200
	interactiveHeight = 50
)

// blockers are texts of screens that stop an interactive session before its
// prompt, each with what it means; StartInteractive fails at once on them
// instead of waiting for its deadline.
var blockers = []struct{ text, why string }{
	{"Do you want to use this API key?", "the API key is not approved in .claude.json"},
	{"Is this a project you created or one you trust?", "the trust dialog (the project is not trusted in .claude.json)"},
	{"Unable to connect to Anthropic services", "onboarding reached for the network"},
	{"Choose the text style", "the onboarding theme picker"},
	{"Select login method", "the login screen"},
}

// InteractiveOptions configures an interactive session.
type InteractiveOptions struct {
	// CLI is the binary to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to. Required unless BaseURL is set;
	// WaitRequests needs it.
	API *FakeAPI
	// BaseURL overrides API.URL() as ANTHROPIC_BASE_URL.
	BaseURL string
	// Dir is the project directory the session runs in; empty means a fresh
	// t.TempDir().
	Dir string
	// Home is the HOME of the session; empty means a fresh t.TempDir(). An
	// existing $HOME/.claude.json is kept and only completed.
	Home string
	// PluginDirs are passed as --plugin-dir DIR each.
	PluginDirs []string
	// Args are appended to the command line.
	Args []string
	// Env holds extra "KEY=VALUE" entries for the CLI's environment; they
	// are applied last and override everything else.
	Env []string
	// Timeout bounds each wait of the session; DefaultInteractiveTimeout
	// when zero. A wait that times out fails the test, showing the screen.
	Timeout time.Duration
}

// Interactive is a Claude Code session in its interactive UI, run in a
// detached tmux pane of 200×50 characters on a tmux server of its own, and
// driven by typing into it as a person would. Its methods must be called
// from the test's goroutine.
type Interactive struct {
	t    testing.TB
	pane *clitest.Pane
	api  *FakeAPI
	home string
	dir  string
}

// interactiveSession is the tmux session name; each Interactive has its own
// tmux server, so one name serves all.
const interactiveSession = "claude"

// StartInteractive starts the CLI's interactive UI in tmux and waits until
// its prompt is ready for typing. It pre-seeds $HOME/.claude.json so that no
// onboarding, API key or trust dialog appears (onboarding done for Version,
// InteractiveAPIKey approved, Dir trusted), and gives the CLI the
// environment Run gives it (without the developer's CLAUDE*, ANTHROPIC_*,
// CAIRN_CLAUDE_* and proxy variables, nor TMUX), with
// ANTHROPIC_API_KEY=InteractiveAPIKey.
//
// The test is skipped when the CLI is not installed (see FindCLI) or tmux
// is not on PATH; when the environment variable CI is "true" it fails
// instead. The tmux server (and with it a CLI still running) is killed when
// the test ends.
func StartInteractive(t testing.TB, opts InteractiveOptions) *Interactive {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		clitest.Unavailable(t, "claudetest: tmux not found on PATH; interactive sessions run in tmux")
	}
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		if opts.API == nil {
			t.Fatalf("claudetest: InteractiveOptions needs API or BaseURL")
		}
		baseURL = opts.API.URL()
	}
	s := &Interactive{t: t, api: opts.API, home: opts.Home, dir: opts.Dir}
	if s.home == "" {
		s.home = t.TempDir()
	}
	if s.dir == "" {
		s.dir = t.TempDir()
	}
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = DefaultInteractiveTimeout
	}
	if err := seedClaudeJSON(s.home, s.dir, InteractiveAPIKey); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	var args []string
	for _, d := range opts.PluginDirs {
		args = append(args, "--plugin-dir", d)
	}
	args = append(args, opts.Args...)
	s.pane = clitest.StartPane(t, clitest.PaneOptions{
		Harness: "claudetest", Session: interactiveSession,
		Width: interactiveWidth, Height: interactiveHeight,
		Bin: bin, Args: args, Dir: s.dir, Home: s.home,
		Env: childEnv(os.Environ(), append(append(testenv.Home(s.home),
			"ANTHROPIC_API_KEY="+InteractiveAPIKey,
			"ANTHROPIC_BASE_URL="+baseURL,
		), opts.Env...)),
		Timeout:  timeout,
		Describe: s.describeAPI,
	})
	s.pane.WaitFor("the prompt to be ready", func(screen string) (bool, error) {
		for _, b := range blockers {
			if strings.Contains(screen, b.text) {
				return false, fmt.Errorf("the UI stopped at %s", b.why)
			}
		}
		if s.pane.PID() > 0 && promptReady(screen) {
			return true, nil
		}
		if s.pane.Exited() {
			return false, fmt.Errorf("the CLI exited with status %d", s.pane.ExitCode())
		}
		return false, nil
	})
	return s
}

// Home returns the HOME of the session.
func (s *Interactive) Home() string { return s.home }

// Dir returns the project directory the session runs in.
func (s *Interactive) Dir() string { return s.dir }

// TranscriptPaths returns the session transcripts under
// Home/.claude/projects (main sessions and subagents), sorted.
func (s *Interactive) TranscriptPaths() []string { return transcriptPaths(s.home) }

// Type types text into the prompt as a person would and presses Enter: the
// text is sent literally (no tmux key names), and Enter only once the UI
// has shown it, so that a long text is not taken for a paste that swallows
// the Enter. text must be one line: a newline would press Enter early.
func (s *Interactive) Type(text string) {
	s.t.Helper()
	if strings.ContainsAny(text, "\r\n") {
		s.t.Fatalf("claudetest: Type(%q): one line only", text)
	}
	if text == "" {
		s.Keys("Enter")
		return
	}
	before := s.Screen()
	s.pane.SendText(text)
	// Wait for the text to show, then for the screen to hold still a moment.
	s.pane.WaitFor("the typed text to show", func(screen string) (bool, error) {
		return screen != before, nil
	})
	s.pane.Settle()
	s.Keys("Enter")
}

// Keys sends tmux key names to the UI, one key each, e.g. "Enter",
// "Escape", "C-c", "C-d". They are sent as separate key presses, in order.
func (s *Interactive) Keys(keys ...string) {
	s.t.Helper()
	s.pane.Keys(keys...)
}

// Screen returns what the pane shows now, one line per row, trailing blanks
// trimmed. Claude Code wraps long text itself, so look for short pieces of
// it.
func (s *Interactive) Screen() string {
	s.t.Helper()
	return s.pane.Screen()
}

// WaitScreen waits until the screen shows substr.
func (s *Interactive) WaitScreen(substr string) {
	s.t.Helper()
	s.pane.WaitScreen(substr)
}

// WaitRequests waits until the fake has received at least n main requests
// (requests with tools: one per model call of the conversation, including
// calls after tool results). The request of a turn is recorded before its
// answer is streamed: wait for the answer on the screen (WaitScreen) or for
// the UI to settle (WaitIdle) before the next step.
func (s *Interactive) WaitRequests(n int) {
	s.t.Helper()
	if s.api == nil {
		s.t.Fatalf("claudetest: WaitRequests needs InteractiveOptions.API")
	}
	s.pane.WaitFor(fmt.Sprintf("%d main requests", n), func(string) (bool, error) {
		return len(s.api.MainRequests()) >= n, nil
	})
}

// WaitIdle waits until the UI is idle: its prompt is ready and no turn is
// running (the screen does not offer "esc to interrupt"), on two looks in a
// row. Right after Type the UI may not show its turn as running yet: first
// wait for the turn's request (WaitRequests) or its answer (WaitScreen).
func (s *Interactive) WaitIdle() {
	s.t.Helper()
	idle := 0
	s.pane.WaitFor("the UI to be idle", func(screen string) (bool, error) {
		if promptReady(screen) && !strings.Contains(screen, "esc to interrupt") {
			idle++
		} else {
			idle = 0
		}
		return idle >= 2, nil
	})
}

// Exit ends the session by typing "/exit", as a person would, and waits for
// the CLI to exit. Claude Code 2.1.197 runs the SessionEnd hooks (reason
// "prompt_input_exit") before it exits, so their effects are visible when
// Exit returns; Stop hooks run after each turn, not at exit.
func (s *Interactive) Exit() {
	s.t.Helper()
	s.Type("/exit")
	s.WaitExit()
}

// Hangup sends SIGHUP to the CLI, as closing its terminal window does, and
// waits for it to exit. Claude Code 2.1.197 runs the SessionEnd hooks
// (reason "other") before it exits.
func (s *Interactive) Hangup() {
	s.t.Helper()
	s.pane.Hangup()
}

// WaitExit waits for the CLI to exit, however it was asked to: Exit,
// Hangup, or a double Ctrl-D or Ctrl-C on an empty prompt, which in 2.1.197
// also runs the SessionEnd hooks (reason "prompt_input_exit"):
//
//	s.Keys("C-d")
//	s.WaitScreen("Press Ctrl-D again to exit")
//	s.Keys("C-d")
//	s.WaitExit()
func (s *Interactive) WaitExit() {
	s.t.Helper()
	s.pane.WaitExit()
}

// ExitCode returns the CLI's exit status as a shell reports it (128+N when
// signal N ended it) once WaitExit (or Exit, Hangup) returned; -1 before.
func (s *Interactive) ExitCode() int { return s.pane.ExitCode() }

// describeAPI is the fake's state for failure messages.
func (s *Interactive) describeAPI() string {
	if s.api == nil {
		return "no fake API"
	}
	return fmt.Sprintf("fake API: %d requests (%d main), hits %q", len(s.api.Requests()), len(s.api.MainRequests()), s.api.Hits())
}

// promptReady reports whether the screen shows the prompt box: a line that
// starts with the prompt sign right under a horizontal rule.
func promptReady(screen string) bool {
	lines := strings.Split(screen, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "❯") && strings.HasPrefix(lines[i-1], "──") {
			return true
		}
	}
	return false
}

// seedClaudeJSON completes $home/.claude.json (keeping what it holds) so
// that the interactive UI starts at its prompt: onboarding done for Version,
// the last 20 characters of key approved, dir trusted (also under its real
// path, as the CLI may resolve symbolic links).
func seedClaudeJSON(home, dir, key string) error {
	path := filepath.Join(home, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &cfg); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["lastOnboardingVersion"] = Version
	if _, ok := cfg["theme"]; !ok {
		cfg["theme"] = "dark"
	}

	responses, _ := cfg["customApiKeyResponses"].(map[string]any)
	if responses == nil {
		responses = map[string]any{}
	}
	suffix := key
	if len(suffix) > 20 {
		suffix = suffix[len(suffix)-20:]
	}
	approved, _ := responses["approved"].([]any)
	found := false
	for _, a := range approved {
		found = found || a == suffix
	}
	if !found {
		approved = append(approved, suffix)
	}
	responses["approved"] = approved
	if _, ok := responses["rejected"]; !ok {
		responses["rejected"] = []any{}
	}
	cfg["customApiKeyResponses"] = responses

	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		p, _ := projects[d].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		p["hasTrustDialogAccepted"] = true
		p["hasCompletedProjectOnboarding"] = true
		projects[d] = p
	}
	cfg["projects"] = projects

	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

package claudetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// pollInterval is the pause between two looks at the screen or the fake.
const pollInterval = 100 * time.Millisecond

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
	t       testing.TB
	tmux    string
	sock    string
	api     *FakeAPI
	home    string
	dir     string
	args    []string
	timeout time.Duration
	// pidFile and statusFile receive the CLI's process id when it starts
	// and its exit status when it ends (see StartInteractive).
	pidFile    string
	statusFile string
	pid        int

	exited   bool
	exitCode int
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
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		msg := "claudetest: tmux not found on PATH; interactive sessions run in tmux"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must install it", msg)
		}
		t.Skip(msg)
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
	s := &Interactive{t: t, tmux: tmuxBin, api: opts.API, home: opts.Home, dir: opts.Dir,
		timeout: opts.Timeout, exitCode: -1}
	if s.home == "" {
		s.home = t.TempDir()
	}
	if s.dir == "" {
		s.dir = t.TempDir()
	}
	if s.timeout == 0 {
		s.timeout = DefaultInteractiveTimeout
	}
	if err := seedClaudeJSON(s.home, s.dir, InteractiveAPIKey); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	for _, d := range opts.PluginDirs {
		s.args = append(s.args, "--plugin-dir", d)
	}
	s.args = append(s.args, opts.Args...)

	// The socket lives in a short directory of its own: t.TempDir() paths
	// can exceed the 108 bytes a Unix socket path may have.
	sockDir, err := os.MkdirTemp("", "claudetest-tmux-")
	if err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	s.sock = filepath.Join(sockDir, "sock")
	s.pidFile = filepath.Join(sockDir, "pid")
	s.statusFile = filepath.Join(sockDir, "status")
	conf := filepath.Join(sockDir, "tmux.conf")
	// The pane stays after the CLI exits, so its last screen can be read;
	// no status line, so the UI gets the whole 200×50; /bin/sh runs the
	// command whatever the developer's shell.
	confText := "set -g default-shell /bin/sh\nset -g status off\nset -g remain-on-exit on\nset -g history-limit 10000\n"
	if err := os.WriteFile(conf, []byte(confText), 0o644); err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	t.Cleanup(func() {
		s.stop()
		os.RemoveAll(sockDir)
	})

	// The pane's shell runs the CLI (an inner shell writes its process id
	// and execs it) and writes its exit status. tmux 3.3a does not always
	// reap its pane's process (it was seen to leave it a zombie, with no
	// exit status, for good), so the status comes from the shell, not tmux.
	command := "cd " + shellQuote(s.dir) + ` && sh -c 'echo $$ > "$0" && exec "$@"' ` + shellQuote(s.pidFile) + " " + shellQuote(bin)
	for _, a := range s.args {
		command += " " + shellQuote(a)
	}
	command += "; echo $? > " + shellQuote(s.statusFile+".tmp") + " && mv " + shellQuote(s.statusFile+".tmp") + " " + shellQuote(s.statusFile)
	env := childEnv(withoutTmuxEnv(os.Environ()), append([]string{
		"HOME=" + s.home,
		"ANTHROPIC_API_KEY=" + InteractiveAPIKey,
		"ANTHROPIC_BASE_URL=" + baseURL,
	}, opts.Env...))
	// The first command starts the tmux server with env, which the pane
	// then inherits.
	cmd := exec.Command(tmuxBin, "-S", s.sock, "-f", conf, "new-session", "-d", "-s", interactiveSession,
		"-x", strconv.Itoa(interactiveWidth), "-y", strconv.Itoa(interactiveHeight), command)
	cmd.Env = env
	cmd.Dir = s.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("claudetest: tmux new-session: %v\n%s", err, out)
	}

	s.waitFor("the prompt to be ready", func(screen string) (bool, error) {
		for _, b := range blockers {
			if strings.Contains(screen, b.text) {
				return false, fmt.Errorf("the UI stopped at %s", b.why)
			}
		}
		if s.pid == 0 {
			if b, err := os.ReadFile(s.pidFile); err == nil {
				s.pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
		if s.pid > 0 && promptReady(screen) {
			return true, nil
		}
		if s.checkExited() {
			return false, fmt.Errorf("the CLI exited with status %d", s.exitCode)
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
	s.tmuxRun("send-keys", "-t", interactiveSession, "-l", "--", text)
	// Wait for the text to show, then for the screen to hold still a moment
	// (at most a second or two: a busy UI keeps animating).
	s.waitFor("the typed text to show", func(screen string) (bool, error) {
		return screen != before, nil
	})
	last := s.Screen()
	for range 20 {
		time.Sleep(pollInterval)
		cur := s.Screen()
		if cur == last {
			break
		}
		last = cur
	}
	s.Keys("Enter")
}

// Keys sends tmux key names to the UI, one key each, e.g. "Enter",
// "Escape", "C-c", "C-d". They are sent as separate key presses, in order.
func (s *Interactive) Keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmuxRun("send-keys", "-t", interactiveSession, k)
	}
}

// Screen returns what the pane shows now, one line per row, trailing blanks
// trimmed. Claude Code wraps long text itself, so look for short pieces of
// it.
func (s *Interactive) Screen() string {
	s.t.Helper()
	out := s.tmuxRun("capture-pane", "-p", "-t", interactiveSession)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// WaitScreen waits until the screen shows substr.
func (s *Interactive) WaitScreen(substr string) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("the screen to show %q", substr), func(screen string) (bool, error) {
		return strings.Contains(screen, substr), nil
	})
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
	s.waitFor(fmt.Sprintf("%d main requests", n), func(string) (bool, error) {
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
	s.waitFor("the UI to be idle", func(screen string) (bool, error) {
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
	if s.pid <= 0 {
		s.t.Fatalf("claudetest: the CLI's process id is unknown")
	}
	p, err := os.FindProcess(s.pid)
	if err == nil {
		err = p.Signal(syscall.SIGHUP)
	}
	if err != nil {
		s.t.Fatalf("claudetest: SIGHUP to the CLI: %v", err)
	}
	s.WaitExit()
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
	if s.exited {
		return
	}
	s.waitFor("the CLI to exit", func(string) (bool, error) { return s.checkExited(), nil })
}

// ExitCode returns the CLI's exit status as a shell reports it (128+N when
// signal N ended it) once WaitExit (or Exit, Hangup) returned; -1 before.
func (s *Interactive) ExitCode() int { return s.exitCode }

// checkExited reports whether the CLI has exited, noting its exit status.
func (s *Interactive) checkExited() bool {
	if s.exited {
		return true
	}
	b, err := os.ReadFile(s.statusFile)
	if err != nil {
		return false
	}
	s.exited = true
	if c, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		s.exitCode = c
	}
	return true
}

// waitFor polls the screen until done reports true, failing the test with
// the screen when done returns an error or the timeout passes.
func (s *Interactive) waitFor(what string, done func(screen string) (bool, error)) {
	s.t.Helper()
	deadline := time.Now().Add(s.timeout)
	for {
		screen := s.Screen()
		ok, err := done(screen)
		if ok {
			return
		}
		if err != nil {
			s.t.Fatalf("claudetest: waiting for %s: %v\n%s", what, err, s.describe(screen))
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("claudetest: %s did not happen within %v\n%s", what, s.timeout, s.describe(screen))
		}
		time.Sleep(pollInterval)
	}
}

// describe formats the screen and the session's state for failure messages.
func (s *Interactive) describe(screen string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "claude %s (HOME=%s, in %s)\n", strings.Join(s.args, " "), s.home, s.dir)
	if s.api != nil {
		fmt.Fprintf(&b, "fake API: %d requests (%d main), hits %q\n", len(s.api.Requests()), len(s.api.MainRequests()), s.api.Hits())
	}
	fmt.Fprintf(&b, "--- screen ---\n%s\n--- end of screen ---", screen)
	return b.String()
}

// tmuxRun runs a tmux command on the session's server and returns its
// standard output, failing the test on error.
func (s *Interactive) tmuxRun(args ...string) string {
	s.t.Helper()
	out, err := s.tmuxCmd(args...)
	if err != nil {
		s.t.Fatalf("claudetest: tmux %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (s *Interactive) tmuxCmd(args ...string) (string, error) {
	cmd := exec.Command(s.tmux, append([]string{"-S", s.sock}, args...)...)
	cmd.Env = withoutTmuxEnv(os.Environ())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// stop ends a CLI still running as a hangup would (it runs its SessionEnd
// hooks), killing it if it has not gone within 10 seconds, then kills the
// tmux server.
func (s *Interactive) stop() {
	defer s.tmuxCmd("kill-server")
	if s.pid <= 0 || s.checkExited() {
		return
	}
	p, err := os.FindProcess(s.pid)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.checkExited() {
			return
		}
		time.Sleep(pollInterval)
	}
	_ = p.Kill()
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

// withoutTmuxEnv drops the variables that tie a process to an enclosing
// tmux (the developer's), and the terminal size ones the UI must take from
// its pane.
func withoutTmuxEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "COLUMNS", "LINES":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package codextest

import (
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
// when InteractiveOptions.Timeout is zero: generous, for loaded machines.
const DefaultInteractiveTimeout = 90 * time.Second

// Screen size of the tmux pane the interactive UI runs in.
const (
	paneWidth  = 160
	paneHeight = 50
)

// poll is the pause between two looks at the screen.
const poll = 100 * time.Millisecond

// Texts of the interactive UI of Codex 0.169, as a test waits for them.
const (
	// TrustFolderScreen is the question Codex asks on its first start in
	// a project the person has not trusted; "1. Trust and continue" is
	// selected, Enter takes it.
	TrustFolderScreen = "Trust this folder?"
	// HooksReviewScreen is the question Codex asks at start when hooks are
	// new or changed since the person trusted them; Down then Enter takes
	// "2. Trust all and continue".
	HooksReviewScreen = "Hooks need review"
	// readyScreen is on the screen when the prompt waits for typing.
	readyScreen = "for shortcuts"
	// busyScreen is on the screen while a turn runs.
	busyScreen = "esc to interrupt"
)

// blockers are screens that stop a session for good, each with what it
// means; a wait fails at once on them.
var blockers = []struct{ text, why string }{
	{"Sign in with ChatGPT", "the login screen (the model provider's key is not used)"},
	{"Update available", "the update prompt (check_for_update_on_startup)"},
}

// InteractiveOptions configures an interactive session.
type InteractiveOptions struct {
	CLI          string   // the binary; empty means FindCLI(t)
	API          *FakeAPI // the fake (required)
	Dir          string   // the project directory; empty means a fresh t.TempDir()
	Home         string   // HOME, with CODEX_HOME Home/.codex; empty means a fresh t.TempDir()
	TrustProject bool     // write Dir as trusted (else Codex asks, TrustFolderScreen)
	ConfigExtra  string   // TOML appended to the config
	KeepConfig   bool     // keep an existing Home/.codex/config.toml
	Args         []string // added to the command line
	Env          []string // extra KEY=VALUE entries, applied last
	Timeout      time.Duration
}

// Interactive is a Codex session in its interactive UI, in a detached tmux
// pane on a tmux server of its own, driven by typing as a person would.
// It runs with --no-daemon (and the config turns the daemon off), so no
// background server outlives it. Its methods must be called from the
// test's goroutine.
type Interactive struct {
	t          testing.TB
	tmux, sock string
	api        *FakeAPI
	home, dir  string
	args       []string
	timeout    time.Duration
	pidFile    string
	statusFile string
	pid        int
	exited     bool
	exitCode   int
}

// StartInteractive starts the CLI's interactive UI in tmux, configured as
// Run configures exec, and waits until it shows its prompt or one of its
// start-up questions (TrustFolderScreen, HooksReviewScreen), which the
// test answers with Keys. It is skipped when the CLI is not installed or
// tmux is not on PATH (it fails instead when CI is "true"). The tmux
// server, and a CLI still running, are killed when the test ends.
func StartInteractive(t testing.TB, opts InteractiveOptions) *Interactive {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		msg := "codextest: tmux not found on PATH; interactive sessions run in tmux"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must install it", msg)
		}
		t.Skip(msg)
	}
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	if opts.API == nil {
		t.Fatalf("codextest: InteractiveOptions needs API")
	}
	s := &Interactive{t: t, tmux: tmuxBin, api: opts.API, home: opts.Home, dir: opts.Dir, timeout: opts.Timeout, exitCode: -1}
	if s.home == "" {
		s.home = t.TempDir()
	}
	if s.dir == "" {
		s.dir = t.TempDir()
	}
	if s.timeout == 0 {
		s.timeout = DefaultInteractiveTimeout
	}
	codexHome := filepath.Join(s.home, ".codex")
	if !opts.KeepConfig {
		cfg := Config{BaseURL: opts.API.URL(), Extra: opts.ConfigExtra}
		if opts.TrustProject {
			cfg.Trusted = []string{s.dir}
		}
		if err := WriteConfig(codexHome, cfg); err != nil {
			t.Fatalf("codextest: %v", err)
		}
	}
	s.args = append([]string{"--no-daemon"}, opts.Args...)

	// A short directory of its own for the socket: t.TempDir() paths can
	// pass the 108 bytes of a Unix socket's path.
	sockDir, err := os.MkdirTemp("", "codextest-tmux-")
	if err != nil {
		t.Fatalf("codextest: %v", err)
	}
	s.sock = filepath.Join(sockDir, "sock")
	s.pidFile = filepath.Join(sockDir, "pid")
	s.statusFile = filepath.Join(sockDir, "status")
	conf := filepath.Join(sockDir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g default-shell /bin/sh\nset -g status off\nset -g remain-on-exit on\n"), 0o644); err != nil {
		t.Fatalf("codextest: %v", err)
	}
	t.Cleanup(func() {
		s.stop()
		os.RemoveAll(sockDir)
	})
	// The pane's shell notes the CLI's process id, runs it, and writes its
	// exit status (tmux may not reap the pane's process).
	command := "cd " + quote(s.dir) + ` && sh -c 'echo $$ > "$0" && exec "$@"' ` + quote(s.pidFile) + " " + quote(bin)
	for _, a := range s.args {
		command += " " + quote(a)
	}
	command += "; echo $? > " + quote(s.statusFile+".tmp") + " && mv " + quote(s.statusFile+".tmp") + " " + quote(s.statusFile)
	env := append(append(Env(s.home, "TERM=xterm-256color"), opts.API.ProxyEnv()...), opts.Env...)
	cmd := exec.Command(tmuxBin, "-S", s.sock, "-f", conf, "new-session", "-d", "-s", "codex",
		"-x", strconv.Itoa(paneWidth), "-y", strconv.Itoa(paneHeight), command)
	cmd.Env = withoutTmux(env)
	cmd.Dir = s.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("codextest: tmux new-session: %v\n%s", err, out)
	}
	s.waitFor("the prompt or a start-up question", func(screen string) (bool, error) {
		if s.pid == 0 {
			if b, err := os.ReadFile(s.pidFile); err == nil {
				s.pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
		return s.pid > 0 && (strings.Contains(screen, readyScreen) || strings.Contains(screen, TrustFolderScreen) ||
			strings.Contains(screen, HooksReviewScreen)), nil
	})
	return s
}

// Home returns the HOME of the session (CODEX_HOME is Home/.codex).
func (s *Interactive) Home() string { return s.home }

// Dir returns the project directory the session runs in.
func (s *Interactive) Dir() string { return s.dir }

// RolloutPaths returns the session rollouts under CODEX_HOME/sessions.
func (s *Interactive) RolloutPaths() []string { return rolloutPaths(filepath.Join(s.home, ".codex")) }

// Type types a line into the prompt as a person would and presses Enter
// once the UI shows it.
func (s *Interactive) Type(text string) {
	s.t.Helper()
	if strings.ContainsAny(text, "\r\n") {
		s.t.Fatalf("codextest: Type(%q): one line only", text)
	}
	s.tmuxRun("send-keys", "-t", "codex", "-l", "--", text)
	last := text
	if len(last) > 20 {
		last = last[len(last)-20:]
	}
	s.WaitScreen(last)
	s.Keys("Enter")
}

// Keys sends tmux key names, one key press each, e.g. "Enter", "Down".
func (s *Interactive) Keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmuxRun("send-keys", "-t", "codex", k)
	}
}

// Screen returns what the pane shows now, trailing blanks trimmed.
func (s *Interactive) Screen() string {
	s.t.Helper()
	lines := strings.Split(s.tmuxRun("capture-pane", "-p", "-t", "codex"), "\n")
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

// WaitReady waits until the prompt waits for typing and no turn runs, on
// two looks in a row.
func (s *Interactive) WaitReady() {
	s.t.Helper()
	n := 0
	s.waitFor("the prompt to be ready", func(screen string) (bool, error) {
		if strings.Contains(screen, readyScreen) && !strings.Contains(screen, busyScreen) &&
			!strings.Contains(screen, TrustFolderScreen) && !strings.Contains(screen, HooksReviewScreen) {
			n++
		} else {
			n = 0
		}
		return n >= 2, nil
	})
}

// WaitRequests waits until the fake has received at least n main
// requests.
func (s *Interactive) WaitRequests(n int) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%d main requests", n), func(string) (bool, error) {
		return len(s.api.MainRequests()) >= n, nil
	})
}

// Quit types /quit, as a person would, and waits for the CLI to exit;
// Codex 0.169 runs the SessionEnd hooks before it exits.
func (s *Interactive) Quit() {
	s.t.Helper()
	s.Type("/quit")
	s.WaitExit()
}

// WaitExit waits for the CLI to exit.
func (s *Interactive) WaitExit() {
	s.t.Helper()
	s.waitFor("the CLI to exit", func(string) (bool, error) { return s.checkExited(), nil })
}

// ExitCode is the CLI's exit status once it exited; -1 before.
func (s *Interactive) ExitCode() int { return s.exitCode }

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
// the screen on an error, a blocker screen, or the timeout.
func (s *Interactive) waitFor(what string, done func(screen string) (bool, error)) {
	s.t.Helper()
	deadline := time.Now().Add(s.timeout)
	for {
		screen := s.Screen()
		ok, err := done(screen)
		if ok {
			return
		}
		for _, b := range blockers {
			if err == nil && strings.Contains(screen, b.text) {
				err = fmt.Errorf("the UI stopped at %s", b.why)
			}
		}
		if err == nil && !strings.HasPrefix(what, "the CLI to exit") && s.checkExited() {
			err = fmt.Errorf("the CLI exited with status %d", s.exitCode)
		}
		if err != nil {
			s.t.Fatalf("codextest: waiting for %s: %v\n%s", what, err, s.describe(screen))
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("codextest: %s did not happen within %v\n%s", what, s.timeout, s.describe(screen))
		}
		time.Sleep(poll)
	}
}

func (s *Interactive) describe(screen string) string {
	return fmt.Sprintf("codex %s (HOME=%s, in %s)\nfake API: %d requests, hits %q\n--- screen ---\n%s\n--- end of screen ---",
		strings.Join(s.args, " "), s.home, s.dir, len(s.api.Requests()), s.api.Hits(), screen)
}

func (s *Interactive) tmuxRun(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(s.tmux, append([]string{"-S", s.sock}, args...)...)
	cmd.Env = withoutTmux(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		s.t.Fatalf("codextest: tmux %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// stop hangs up a CLI still running (killing it if it has not gone within
// 10 seconds), then kills the tmux server.
func (s *Interactive) stop() {
	defer exec.Command(s.tmux, "-S", s.sock, "kill-server").Run()
	if s.pid <= 0 || s.checkExited() {
		return
	}
	p, err := os.FindProcess(s.pid)
	if err != nil {
		return
	}
	_ = p.Signal(syscall.SIGHUP)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(poll) {
		if s.checkExited() {
			return
		}
	}
	_ = p.Kill()
}

// withoutTmux drops the variables that tie a process to an enclosing tmux,
// and the terminal size ones the UI must take from its pane.
func withoutTmux(env []string) []string {
	var out []string
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "TMUX", "TMUX_PANE", "COLUMNS", "LINES":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// quote quotes s for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

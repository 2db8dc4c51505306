package codextest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// DefaultInteractiveTimeout bounds each wait of an Interactive session
// when InteractiveOptions.Timeout is zero: generous, for loaded machines.
const DefaultInteractiveTimeout = 90 * time.Second

// Screen size of the tmux pane the interactive UI runs in.
const (
	paneWidth  = 160
	paneHeight = 50
)

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
	t         testing.TB
	pane      *clitest.Pane
	api       *FakeAPI
	home, dir string
}

// StartInteractive starts the CLI's interactive UI in tmux, configured as
// Run configures exec, and waits until it shows its prompt or one of its
// start-up questions (TrustFolderScreen, HooksReviewScreen), which the
// test answers with Keys. It is skipped when the CLI is not installed or
// tmux is not on PATH (it fails instead when CI is "true"). The tmux
// server, and a CLI still running, are killed when the test ends.
func StartInteractive(t testing.TB, opts InteractiveOptions) *Interactive {
	t.Helper()
	bin := opts.CLI
	if bin == "" {
		bin = FindCLI(t)
	}
	if opts.API == nil {
		t.Fatalf("codextest: InteractiveOptions needs API")
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
	if !opts.KeepConfig {
		cfg := Config{BaseURL: opts.API.URL(), Extra: opts.ConfigExtra}
		if opts.TrustProject {
			cfg.Trusted = []string{s.dir}
		}
		if err := WriteConfig(filepath.Join(s.home, ".codex"), cfg); err != nil {
			t.Fatalf("codextest: %v", err)
		}
	}
	s.pane = clitest.StartPane(t, clitest.PaneOptions{
		Harness: "codextest", Session: "codex",
		Width: paneWidth, Height: paneHeight,
		Bin: bin, Args: append([]string{"--no-daemon"}, opts.Args...),
		Dir: s.dir, Home: s.home,
		Env:     append(append(Env(s.home, "TERM=xterm-256color"), opts.API.ProxyEnv()...), opts.Env...),
		Timeout: timeout,
		Describe: func() string {
			return fmt.Sprintf("fake API: %d requests, hits %q", len(s.api.Requests()), s.api.Hits())
		},
	})
	s.waitFor("the prompt or a start-up question", func(screen string) (bool, error) {
		return s.pane.PID() > 0 && (strings.Contains(screen, readyScreen) || strings.Contains(screen, TrustFolderScreen) ||
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
	s.pane.SendText(text)
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
	s.pane.Keys(keys...)
}

// Answer answers the dialog the screen shows (text names it) with keys,
// once the screen holds still, and waits until the dialog is gone; a key
// press the UI was not ready for (under load) is sent again.
func (s *Interactive) Answer(dialog string, keys ...string) {
	s.t.Helper()
	s.WaitScreen(dialog)
	s.pane.Settle()
	s.pane.Keys(keys...)
	looks := 0
	s.waitFor(fmt.Sprintf("the dialog %q to close", dialog), func(screen string) (bool, error) {
		if !strings.Contains(screen, dialog) {
			return true, nil
		}
		if looks++; looks%40 == 0 {
			s.pane.Keys(keys...)
		}
		return false, nil
	})
}

// Screen returns what the pane shows now, trailing blanks trimmed.
func (s *Interactive) Screen() string {
	s.t.Helper()
	return s.pane.Screen()
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
	s.waitFor(waitingExit, func(string) (bool, error) { return s.pane.Exited(), nil })
}

// ExitCode is the CLI's exit status once it exited; -1 before.
func (s *Interactive) ExitCode() int { return s.pane.ExitCode() }

// waitingExit is what WaitExit waits for.
const waitingExit = "the CLI to exit"

// waitFor polls the screen until done reports true (see clitest.Pane's
// WaitFor), failing the test at once on an error, a blocker screen, or,
// unless it waits for it, the CLI's exit.
func (s *Interactive) waitFor(what string, done func(screen string) (bool, error)) {
	s.t.Helper()
	s.pane.WaitFor(what, func(screen string) (bool, error) {
		if ok, err := done(screen); ok || err != nil {
			return ok, err
		}
		for _, b := range blockers {
			if strings.Contains(screen, b.text) {
				return false, fmt.Errorf("the UI stopped at %s", b.why)
			}
		}
		if what != waitingExit && s.pane.Exited() {
			return false, fmt.Errorf("the CLI exited with status %d", s.pane.ExitCode())
		}
		return false, nil
	})
}

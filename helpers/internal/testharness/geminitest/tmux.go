package geminitest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// DefaultInteractiveTimeout bounds each wait of an Interactive session
// (start, typing, requests, screen, exit) when InteractiveOptions.Timeout
// is zero. It is generous: the tests run in parallel on small, loaded
// machines.
const DefaultInteractiveTimeout = 90 * time.Second

// The tmux pane the interactive UI runs in.
const (
	paneWidth   = 200
	paneHeight  = 50
	paneSession = "gemini"
)

// promptSign is the placeholder of Gemini CLI 0.61.0's empty prompt: the
// UI shows it when it is ready for typing.
const promptSign = "Type your message or @path/to/file"

// busySign is on the screen while a turn runs.
const busySign = "esc to cancel"

// blockers are screens that stop an interactive session before its
// prompt, each with what it means; StartInteractive fails at once on them
// instead of waiting for its deadline.
var blockers = []struct{ text, why string }{
	{"Do you trust the files in this folder?", "the folder trust dialog (the folder is not in trustedFolders.json)"},
	{"How would you like to authenticate", "the authentication dialog (no API-key auth in the user settings)"},
	{"Get started", "the authentication dialog"},
}

// InteractiveOptions configures an interactive session.
type InteractiveOptions struct {
	// CLI is the CLI to run; empty means FindCLI(t).
	CLI string
	// API is the fake the CLI talks to. Required unless BaseURL is set;
	// WaitRequests needs it.
	API *FakeAPI
	// BaseURL overrides API.URL() as GOOGLE_GEMINI_BASE_URL.
	BaseURL string
	// Dir is the project directory; empty means a fresh t.TempDir().
	Dir string
	// Home is the HOME of the session; empty means a fresh t.TempDir(). It
	// is seeded by SeedHome.
	Home string
	// Args are appended to the command line; "--approval-mode yolo" comes
	// before them, so that the shell tool runs without asking.
	Args []string
	// Env holds extra "KEY=VALUE" entries for the CLI's environment; they
	// are applied last and override everything else.
	Env []string
	// Timeout bounds each wait; DefaultInteractiveTimeout when zero. A wait
	// that times out fails the test, showing the screen.
	Timeout time.Duration
}

// Interactive is a Gemini CLI session in its interactive UI, run in a
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

// StartInteractive starts the CLI's interactive UI in tmux and waits until
// its prompt is ready for typing. The HOME is seeded by SeedHome (API-key
// auth, Dir trusted, nothing that reaches the network), and the CLI gets
// the environment Run gives it, without TMUX.
//
// The test is skipped when the CLI is not installed (see FindCLI) or tmux
// is not on PATH; when CI is "true" it fails instead. The tmux server
// (and with it a CLI still running) is killed when the test ends.
func StartInteractive(t testing.TB, opts InteractiveOptions) *Interactive {
	t.Helper()
	cli := opts.CLI
	if cli == "" {
		cli = FindCLI(t)
	}
	baseURL := opts.BaseURL
	if baseURL == "" {
		if opts.API == nil {
			t.Fatalf("geminitest: InteractiveOptions needs API or BaseURL")
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
	if err := SeedHome(s.home, s.dir); err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	s.pane = clitest.StartPane(t, clitest.PaneOptions{
		Harness: "geminitest", Session: paneSession,
		Width: paneWidth, Height: paneHeight,
		Bin: cli, Args: append([]string{"--approval-mode", "yolo"}, opts.Args...),
		Dir: s.dir, Home: s.home,
		Env: childEnv(os.Environ(), append(append(testenv.Home(s.home),
			"GEMINI_API_KEY="+APIKey,
			"GOOGLE_GEMINI_BASE_URL="+baseURL,
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
		if s.pane.PID() > 0 && strings.Contains(screen, promptSign) {
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

// Type types text into the prompt as a person would and presses Enter,
// once the UI shows the text (so that it is not taken for a paste that
// swallows the Enter). text must be one line, without a question mark:
// Gemini CLI 0.61.0 drops a "?" typed into its prompt through tmux.
func (s *Interactive) Type(text string) {
	s.t.Helper()
	if strings.ContainsAny(text, "\r\n?") {
		s.t.Fatalf("geminitest: Type(%q): one line only, and no question mark", text)
	}
	if text == "" {
		s.Keys("Enter")
		return
	}
	s.pane.SendText(text)
	// The prompt shows the text's end, once it took all of it.
	tail := text
	if len(tail) > 20 {
		tail = tail[len(tail)-20:]
	}
	s.pane.WaitScreen(tail)
	s.pane.Settle()
	s.Keys("Enter")
}

// Keys sends tmux key names to the UI, one key press each, in order:
// "Enter", "Escape", "C-c", "C-d".
func (s *Interactive) Keys(keys ...string) {
	s.t.Helper()
	s.pane.Keys(keys...)
}

// Screen returns what the pane shows now, one line per row, trailing
// blanks trimmed.
func (s *Interactive) Screen() string {
	s.t.Helper()
	return s.pane.Screen()
}

// WaitScreen waits until the screen shows substr.
func (s *Interactive) WaitScreen(substr string) {
	s.t.Helper()
	s.pane.WaitScreen(substr)
}

// WaitRequests waits until the fake has received at least n main
// requests. A request is recorded before its answer is streamed: wait for
// the answer on the screen, or WaitIdle, before the next step.
func (s *Interactive) WaitRequests(n int) {
	s.t.Helper()
	if s.api == nil {
		s.t.Fatalf("geminitest: WaitRequests needs InteractiveOptions.API")
	}
	s.pane.WaitFor(fmt.Sprintf("%d main requests", n), func(string) (bool, error) {
		return len(s.api.MainRequests()) >= n, nil
	})
}

// WaitIdle waits until the UI is idle: its empty prompt shows and no turn
// runs, on two looks in a row. Right after Type the turn may not show as
// running yet: first wait for its request or its answer.
func (s *Interactive) WaitIdle() {
	s.t.Helper()
	idle := 0
	s.pane.WaitFor("the UI to be idle", func(screen string) (bool, error) {
		if strings.Contains(screen, promptSign) && !strings.Contains(screen, busySign) {
			idle++
		} else {
			idle = 0
		}
		return idle >= 2, nil
	})
}

// quitSign is the line of Gemini CLI 0.61.0's command menu for /quit: it
// shows once the typed "/quit" is taken for that command.
const quitSign = "Exit the cli"

// Exit ends the session by typing "/quit", as a person would, and waits
// for the CLI to exit. Gemini CLI 0.61.0 fires SessionEnd as it exits,
// without waiting for its hooks.
//
// The Enter waits for the command menu: one pressed while the menu is
// being drawn can be lost, leaving "/quit" in the prompt. A person then
// presses Enter again, and so does Exit, once, if the CLI still shows the
// command a few seconds later.
func (s *Interactive) Exit() {
	s.t.Helper()
	s.pane.SendText("/quit")
	s.pane.WaitScreen(quitSign)
	s.pane.Settle()
	s.Keys("Enter")
	pressed := time.Now()
	again := false
	s.pane.WaitFor("the CLI to exit", func(screen string) (bool, error) {
		if s.pane.Exited() {
			return true, nil
		}
		if !again && time.Since(pressed) > 5*time.Second && strings.Contains(screen, quitSign) {
			again = true
			s.Keys("Enter")
		}
		return false, nil
	})
}

// WaitExit waits for the CLI to exit.
func (s *Interactive) WaitExit() {
	s.t.Helper()
	s.pane.WaitExit()
}

// ExitCode returns the CLI's exit status as a shell reports it once
// WaitExit (or Exit) returned; -1 before.
func (s *Interactive) ExitCode() int { return s.pane.ExitCode() }

// describeAPI is the fake's state for failure messages.
func (s *Interactive) describeAPI() string {
	if s.api == nil {
		return "no fake API"
	}
	return fmt.Sprintf("fake API: %d requests (%d main), hits %q", len(s.api.Requests()), len(s.api.MainRequests()), s.api.Hits())
}

package geminitest

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

// pollInterval is the pause between two looks at the screen or the fake.
const pollInterval = 100 * time.Millisecond

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
	t       testing.TB
	tmux    string
	sock    string
	api     *FakeAPI
	home    string
	dir     string
	args    []string
	timeout time.Duration
	// pidFile and statusFile receive the CLI's process id when it starts
	// and its exit status when it ends.
	pidFile    string
	statusFile string
	pid        int

	exited   bool
	exitCode int
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
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		msg := "geminitest: tmux not found on PATH; interactive sessions run in tmux"
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI must install it", msg)
		}
		t.Skip(msg)
	}
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
	if err := SeedHome(s.home, s.dir); err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	s.args = append([]string{"--approval-mode", "yolo"}, opts.Args...)

	// A short directory of its own for the socket: t.TempDir() paths can
	// pass the 108 bytes a Unix socket path may have.
	sockDir, err := os.MkdirTemp("", "geminitest-tmux-")
	if err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	s.sock = filepath.Join(sockDir, "sock")
	s.pidFile = filepath.Join(sockDir, "pid")
	s.statusFile = filepath.Join(sockDir, "status")
	conf := filepath.Join(sockDir, "tmux.conf")
	// The pane stays after the CLI exits, so that its last screen can be
	// read; no status line; /bin/sh whatever the developer's shell.
	confText := "set -g default-shell /bin/sh\nset -g status off\nset -g remain-on-exit on\nset -g history-limit 10000\n"
	if err := os.WriteFile(conf, []byte(confText), 0o644); err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	t.Cleanup(func() {
		s.stop()
		os.RemoveAll(sockDir)
	})

	// The pane's shell notes the CLI's process id (an inner shell writes
	// its own and execs the CLI) and, once it ends, its exit status.
	command := "cd " + shellQuote(s.dir) + ` && sh -c 'echo $$ > "$0" && exec "$@"' ` + shellQuote(s.pidFile) + " " + shellQuote(cli)
	for _, a := range s.args {
		command += " " + shellQuote(a)
	}
	command += "; echo $? > " + shellQuote(s.statusFile+".tmp") + " && mv " + shellQuote(s.statusFile+".tmp") + " " + shellQuote(s.statusFile)
	env := childEnv(withoutTmuxEnv(os.Environ()), append([]string{
		"HOME=" + s.home,
		"GEMINI_API_KEY=" + APIKey,
		"GOOGLE_GEMINI_BASE_URL=" + baseURL,
	}, opts.Env...))
	// The first command starts the tmux server with env; the pane
	// inherits it.
	cmd := exec.Command(tmuxBin, "-S", s.sock, "-f", conf, "new-session", "-d", "-s", paneSession,
		"-x", strconv.Itoa(paneWidth), "-y", strconv.Itoa(paneHeight), command)
	cmd.Env = env
	cmd.Dir = s.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("geminitest: tmux new-session: %v\n%s", err, out)
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
		if s.pid > 0 && strings.Contains(screen, promptSign) {
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
	s.tmuxRun("send-keys", "-t", paneSession, "-l", "--", text)
	// The prompt shows the text's end, once it took all of it.
	tail := text
	if len(tail) > 20 {
		tail = tail[len(tail)-20:]
	}
	s.WaitScreen(tail)
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

// Keys sends tmux key names to the UI, one key press each, in order:
// "Enter", "Escape", "C-c", "C-d".
func (s *Interactive) Keys(keys ...string) {
	s.t.Helper()
	for _, k := range keys {
		s.tmuxRun("send-keys", "-t", paneSession, k)
	}
}

// Screen returns what the pane shows now, one line per row, trailing
// blanks trimmed.
func (s *Interactive) Screen() string {
	s.t.Helper()
	out := s.tmuxRun("capture-pane", "-p", "-t", paneSession)
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

// WaitRequests waits until the fake has received at least n main
// requests. A request is recorded before its answer is streamed: wait for
// the answer on the screen, or WaitIdle, before the next step.
func (s *Interactive) WaitRequests(n int) {
	s.t.Helper()
	if s.api == nil {
		s.t.Fatalf("geminitest: WaitRequests needs InteractiveOptions.API")
	}
	s.waitFor(fmt.Sprintf("%d main requests", n), func(string) (bool, error) {
		return len(s.api.MainRequests()) >= n, nil
	})
}

// WaitIdle waits until the UI is idle: its empty prompt shows and no turn
// runs, on two looks in a row. Right after Type the turn may not show as
// running yet: first wait for its request or its answer.
func (s *Interactive) WaitIdle() {
	s.t.Helper()
	idle := 0
	s.waitFor("the UI to be idle", func(screen string) (bool, error) {
		if strings.Contains(screen, promptSign) && !strings.Contains(screen, busySign) {
			idle++
		} else {
			idle = 0
		}
		return idle >= 2, nil
	})
}

// Exit ends the session by typing "/quit", as a person would, and waits
// for the CLI to exit. Gemini CLI 0.61.0 fires SessionEnd as it exits,
// without waiting for its hooks.
func (s *Interactive) Exit() {
	s.t.Helper()
	s.Type("/quit")
	s.WaitExit()
}

// WaitExit waits for the CLI to exit.
func (s *Interactive) WaitExit() {
	s.t.Helper()
	if s.exited {
		return
	}
	s.waitFor("the CLI to exit", func(string) (bool, error) { return s.checkExited(), nil })
}

// ExitCode returns the CLI's exit status as a shell reports it once
// WaitExit (or Exit) returned; -1 before.
func (s *Interactive) ExitCode() int { return s.exitCode }

// checkExited reports whether the CLI has exited, noting its status.
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
			s.t.Fatalf("geminitest: waiting for %s: %v\n%s", what, err, s.describe(screen))
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("geminitest: %s did not happen within %v\n%s", what, s.timeout, s.describe(screen))
		}
		time.Sleep(pollInterval)
	}
}

// describe formats the screen and the session's state for failures.
func (s *Interactive) describe(screen string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "gemini %s (HOME=%s, in %s)\n", strings.Join(s.args, " "), s.home, s.dir)
	if s.api != nil {
		fmt.Fprintf(&b, "fake API: %d requests (%d main), hits %q\n", len(s.api.Requests()), len(s.api.MainRequests()), s.api.Hits())
	}
	fmt.Fprintf(&b, "--- screen ---\n%s\n--- end of screen ---", screen)
	return b.String()
}

// tmuxRun runs a tmux command on the session's server and returns its
// output, failing the test on error.
func (s *Interactive) tmuxRun(args ...string) string {
	s.t.Helper()
	out, err := s.tmuxCmd(args...)
	if err != nil {
		s.t.Fatalf("geminitest: tmux %s: %v", strings.Join(args, " "), err)
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

// stop ends a CLI still running as a hangup would, killing it if it has
// not gone within 10 seconds, then kills the tmux server.
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

// withoutTmuxEnv drops the variables that tie a process to an enclosing
// tmux, and the terminal size ones the UI must take from its pane.
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

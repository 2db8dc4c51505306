package clitest

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

// pollInterval is the pause between two looks at a pane.
const pollInterval = 100 * time.Millisecond

// PaneOptions configures a Pane.
type PaneOptions struct {
	// Harness prefixes failure messages and names the socket directory,
	// e.g. "claudetest".
	Harness string
	// Session is the tmux session name, e.g. "claude".
	Session string
	// Width and Height are the pane's size in characters.
	Width, Height int
	// Bin and Args are the command the pane runs, in Dir.
	Bin  string
	Args []string
	Dir  string
	// Home is the command's HOME, shown in failure messages.
	Home string
	// Env is the command's whole environment; the tmux variables are
	// dropped from it (see WithoutTmux).
	Env []string
	// Timeout bounds each wait.
	Timeout time.Duration
	// Describe, if set, adds lines (the fake's state) to failure messages.
	Describe func() string
}

// Pane is a command (an interactive CLI) run in a detached tmux pane on a
// tmux server of its own, driven by keys as a person would. Its methods
// must be called from the test's goroutine.
type Pane struct {
	t    testing.TB
	opts PaneOptions
	tmux string
	sock string
	// pidFile and statusFile receive the command's process id when it
	// starts and its exit status when it ends.
	pidFile    string
	statusFile string
	pid        int
	exited     bool
	exitCode   int
}

// StartPane starts the command in tmux and returns without waiting for
// it. The test is skipped when tmux is not on PATH, or fails when CI is
// "true" (see Unavailable). When the test ends a command still running is
// hung up (killed if it has not gone within 10 seconds) and the tmux
// server killed.
func StartPane(t testing.TB, opts PaneOptions) *Pane {
	t.Helper()
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		Unavailable(t, opts.Harness+": tmux not found on PATH; interactive sessions run in tmux")
	}
	p := &Pane{t: t, opts: opts, tmux: tmuxBin, exitCode: -1}
	// A short directory of its own for the socket: t.TempDir() paths can
	// pass the 108 bytes a Unix socket path may have.
	sockDir, err := os.MkdirTemp("", opts.Harness+"-tmux-")
	if err != nil {
		t.Fatalf("%s: %v", opts.Harness, err)
	}
	p.sock = filepath.Join(sockDir, "sock")
	p.pidFile = filepath.Join(sockDir, "pid")
	p.statusFile = filepath.Join(sockDir, "status")
	conf := filepath.Join(sockDir, "tmux.conf")
	// The pane stays after the command exits, so that its last screen can
	// be read; no status line; /bin/sh whatever the developer's shell.
	confText := "set -g default-shell /bin/sh\nset -g status off\nset -g remain-on-exit on\nset -g history-limit 10000\n"
	if err := os.WriteFile(conf, []byte(confText), 0o644); err != nil {
		t.Fatalf("%s: %v", opts.Harness, err)
	}
	t.Cleanup(func() {
		p.stop()
		os.RemoveAll(sockDir)
	})
	// The pane's shell notes the command's process id (an inner shell
	// writes its own and execs the command) and, once it ends, its exit
	// status. tmux 3.3a does not always reap its pane's process (it was
	// seen to leave it a zombie, with no exit status, for good), so the
	// status comes from the shell, not tmux.
	command := "cd " + ShellQuote(opts.Dir) + ` && sh -c 'echo $$ > "$0" && exec "$@"' ` + ShellQuote(p.pidFile) + " " + ShellQuote(opts.Bin)
	for _, a := range opts.Args {
		command += " " + ShellQuote(a)
	}
	command += "; echo $? > " + ShellQuote(p.statusFile+".tmp") + " && mv " + ShellQuote(p.statusFile+".tmp") + " " + ShellQuote(p.statusFile)
	// The first command starts the tmux server with the environment; the
	// pane inherits it.
	cmd := exec.Command(tmuxBin, "-S", p.sock, "-f", conf, "new-session", "-d", "-s", opts.Session,
		"-x", strconv.Itoa(opts.Width), "-y", strconv.Itoa(opts.Height), command)
	cmd.Env = WithoutTmux(opts.Env)
	cmd.Dir = opts.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: tmux new-session: %v\n%s", opts.Harness, err, out)
	}
	return p
}

// PID returns the command's process id, 0 until it is known.
func (p *Pane) PID() int {
	if p.pid == 0 {
		if b, err := os.ReadFile(p.pidFile); err == nil {
			p.pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	return p.pid
}

// SendText types text literally (no tmux key names).
func (p *Pane) SendText(text string) {
	p.t.Helper()
	p.tmuxRun("send-keys", "-t", p.opts.Session, "-l", "--", text)
}

// TypeLine types a line and presses Enter once the screen shows the
// line's end (so that it is not taken for a paste that swallows the
// Enter). A line with a newline fails the test.
func (p *Pane) TypeLine(text string) {
	p.t.Helper()
	if strings.ContainsAny(text, "\r\n") {
		p.t.Fatalf("%s: Type(%q): one line only", p.opts.Harness, text)
	}
	p.SendText(text)
	tail := text
	if len(tail) > 20 {
		tail = tail[len(tail)-20:]
	}
	p.WaitScreen(tail)
	p.Keys("Enter")
}

// Keys sends tmux key names, one key press each, in order: "Enter",
// "Escape", "Down", "C-c", "C-d".
func (p *Pane) Keys(keys ...string) {
	p.t.Helper()
	for _, k := range keys {
		p.tmuxRun("send-keys", "-t", p.opts.Session, k)
	}
}

// Screen returns what the pane shows now, one line per row, trailing
// blanks trimmed.
func (p *Pane) Screen() string {
	p.t.Helper()
	lines := strings.Split(p.tmuxRun("capture-pane", "-p", "-t", p.opts.Session), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// WaitScreen waits until the screen shows substr.
func (p *Pane) WaitScreen(substr string) {
	p.t.Helper()
	p.WaitFor(fmt.Sprintf("the screen to show %q", substr), func(screen string) (bool, error) {
		return strings.Contains(screen, substr), nil
	})
}

// WaitFor polls the screen until done reports true, failing the test with
// the screen when done returns an error or the timeout passes.
func (p *Pane) WaitFor(what string, done func(screen string) (bool, error)) {
	p.t.Helper()
	deadline := time.Now().Add(p.opts.Timeout)
	for {
		screen := p.Screen()
		ok, err := done(screen)
		if ok {
			return
		}
		if err != nil {
			p.t.Fatalf("%s: waiting for %s: %v\n%s", p.opts.Harness, what, err, p.describe(screen))
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %s did not happen within %v\n%s", p.opts.Harness, what, p.opts.Timeout, p.describe(screen))
		}
		time.Sleep(pollInterval)
	}
}

// Settle waits for the screen to hold still a moment, at most about two
// seconds (a busy UI keeps animating).
func (p *Pane) Settle() {
	p.t.Helper()
	last := p.Screen()
	for range 20 {
		time.Sleep(pollInterval)
		cur := p.Screen()
		if cur == last {
			return
		}
		last = cur
	}
}

// Hangup sends SIGHUP to the command, as closing its terminal window
// does, and waits for it to exit.
func (p *Pane) Hangup() {
	p.t.Helper()
	if p.PID() <= 0 {
		p.t.Fatalf("%s: the CLI's process id is unknown", p.opts.Harness)
	}
	proc, err := os.FindProcess(p.pid)
	if err == nil {
		err = proc.Signal(syscall.SIGHUP)
	}
	if err != nil {
		p.t.Fatalf("%s: SIGHUP to the CLI: %v", p.opts.Harness, err)
	}
	p.WaitExit()
}

// WaitExit waits for the command to exit.
func (p *Pane) WaitExit() {
	p.t.Helper()
	if p.exited {
		return
	}
	p.WaitFor("the CLI to exit", func(string) (bool, error) { return p.Exited(), nil })
}

// ExitCode returns the command's exit status as a shell reports it
// (128+N when signal N ended it) once it exited; -1 before.
func (p *Pane) ExitCode() int { return p.exitCode }

// Exited reports whether the command has exited, noting its status.
func (p *Pane) Exited() bool {
	if p.exited {
		return true
	}
	b, err := os.ReadFile(p.statusFile)
	if err != nil {
		return false
	}
	p.exited = true
	if c, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		p.exitCode = c
	}
	return true
}

// describe formats the screen and the session's state for failures.
func (p *Pane) describe(screen string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (HOME=%s, in %s)\n", p.opts.Session, strings.Join(p.opts.Args, " "), p.opts.Home, p.opts.Dir)
	if p.opts.Describe != nil {
		b.WriteString(p.opts.Describe() + "\n")
	}
	fmt.Fprintf(&b, "--- screen ---\n%s\n--- end of screen ---", screen)
	return b.String()
}

// tmuxRun runs a tmux command on the pane's server and returns its
// output, failing the test on error.
func (p *Pane) tmuxRun(args ...string) string {
	p.t.Helper()
	out, err := p.tmuxCmd(args...)
	if err != nil {
		p.t.Fatalf("%s: tmux %s: %v", p.opts.Harness, strings.Join(args, " "), err)
	}
	return out
}

func (p *Pane) tmuxCmd(args ...string) (string, error) {
	cmd := exec.Command(p.tmux, append([]string{"-S", p.sock}, args...)...)
	cmd.Env = WithoutTmux(os.Environ())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// stop ends a command still running as a hangup would, killing it if it
// has not gone within 10 seconds, then kills the tmux server.
func (p *Pane) stop() {
	defer p.tmuxCmd("kill-server")
	if p.PID() <= 0 || p.Exited() {
		return
	}
	proc, err := os.FindProcess(p.pid)
	if err != nil {
		return
	}
	_ = proc.Signal(syscall.SIGHUP)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(pollInterval) {
		if p.Exited() {
			return
		}
	}
	_ = proc.Kill()
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

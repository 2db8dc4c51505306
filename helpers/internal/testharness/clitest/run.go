package clitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"testing"
	"time"
)

// Command is one run of a CLI to its end, its output captured.
type Command struct {
	// Harness prefixes failure messages, e.g. "codextest".
	Harness string
	// Bin and Args are the command, run in Dir with the whole
	// environment Env.
	Bin  string
	Args []string
	Dir  string
	Env  []string
	// Stdin is the command's input; nil means the null device.
	Stdin io.Reader
	// Timeout bounds the run.
	Timeout time.Duration
}

// Ran is the outcome of a Command.
type Ran struct {
	Stdout, Stderr string
	ExitCode       int
	Duration       time.Duration
}

// Run runs c in its own process group (see SetProcessGroup) and returns
// its outcome. It fails the test, showing describe(ran), when c cannot be
// started or does not finish within c.Timeout (c and everything it
// spawned are killed); a non-zero exit is only reported in Ran.ExitCode.
func (c Command) Run(t testing.TB, describe func(Ran) string) Ran {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Bin, c.Args...)
	cmd.Dir, cmd.Env, cmd.Stdin = c.Dir, c.Env, c.Stdin
	SetProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	ran := Ran{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	if cmd.ProcessState != nil {
		ran.ExitCode = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		t.Fatalf("%s: the CLI did not finish within %v\n%s", c.Harness, c.Timeout, describe(ran))
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("%s: run %s: %v\n%s", c.Harness, c.Bin, err, describe(ran))
	}
	return ran
}

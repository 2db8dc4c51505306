// Package model runs the model cairn asks for distillations and wiki
// compilations: a command that reads the prompt on stdin and prints the
// answer (`claude -p` by default), and the tolerant reading of a JSON
// object out of its answer.
package model

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
)

// Reply is the model's answer to one prompt.
type Reply struct {
	Text string
	// CostUSD is what the call cost, when the runner reports it (Claude
	// Code's JSON output does); Costed says whether it did.
	CostUSD float64
	Costed  bool
}

// Func asks the model one prompt.
type Func func(ctx context.Context, prompt string) (Reply, error)

// maxAnswer caps what is read of the model's answer.
const maxAnswer = 1 << 20

// Why a model call failed.
var (
	// ErrTimeout: the model did not answer within its timeout; it was
	// killed with everything it started.
	ErrTimeout = errors.New("no answer within the timeout")
	// ErrCut: the answer was longer than cairn reads; a cut answer is
	// never taken for a whole one.
	ErrCut = fmt.Errorf("the answer is over %d bytes, so it was not read", maxAnswer)
)

// CallEnv names, in the environment of the model and of everything it
// starts, the call it belongs to: "<owner pid>.<owner start>.<nonce>". A
// child that leaves the model's process group (setsid) keeps it, so the
// call's end finds it, and so does [Reap] once the owner is dead.
const CallEnv = "CAIRN_MODEL_CALL"

// Command runs argv with the prompt on stdin, in the scratch directory dir
// (so a headless run's files land in no project), with the pipeline's
// child mark in its environment so that none of cairn's hooks act in it,
// for at most timeout (none when zero or less). It runs in a process group
// of its own, killed whole at the timeout or the context's end, together
// with every process that carries the call's [CallEnv] (on Linux: those
// that left the group too, found in /proc); whatever the call leaves
// running when it ends is killed as well. On Linux the model is also
// killed when the thread that started it dies (Pdeathsig), and what it
// started is left to [Reap]. An answer over 1 MiB is an error ([ErrCut]);
// an answer in Claude Code's JSON output (`--output-format json`) is
// unwrapped: its result is the text, and its cost is reported.
func Command(argv []string, dir string, timeout time.Duration) Func {
	return func(ctx context.Context, prompt string) (Reply, error) {
		if len(argv) == 0 {
			return Reply{}, errors.New("no model command")
		}
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		call := callID()
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(prompt)
		cmd.Env = append(os.Environ(), detach.ChildEnv+"=1", CallEnv+"="+call)
		if err := os.MkdirAll(dir, 0o700); err == nil {
			cmd.Dir = dir
		}
		out, errOut := NewCapped(maxAnswer), NewCapped(4<<10)
		cmd.Stdout, cmd.Stderr = out, errOut
		cmd.WaitDelay = 5 * time.Second
		detach.Group(cmd)
		killGroup := cmd.Cancel
		cmd.Cancel = func() error {
			err := killGroup()
			killCall(call)
			return err
		}
		dieWithParent(cmd)
		// Pdeathsig fires when the thread that started the model ends: keep
		// this one until the model is waited for.
		runtime.LockOSThread()
		err := cmd.Run()
		runtime.UnlockOSThread()
		killCall(call)
		if err != nil {
			switch {
			case errors.Is(ctx.Err(), context.DeadlineExceeded):
				return Reply{}, fmt.Errorf("%s: %w (%s)", argv[0], ErrTimeout, timeout)
			case ctx.Err() != nil:
				return Reply{}, fmt.Errorf("%s: %w", argv[0], ctx.Err())
			}
			return Reply{}, fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(errOut.String()))
		}
		if out.Cut() {
			return Reply{}, fmt.Errorf("%s: %w", argv[0], ErrCut)
		}
		return Unwrap(out.String())
	}
}

// callID names one call of this process: its pid and start (so that a
// reused pid is not taken for it) and a random nonce.
func callID() string {
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	return fmt.Sprintf("%d.%d.%s", os.Getpid(), startTime(os.Getpid()), hex.EncodeToString(nonce[:]))
}

// Unwrap reads Claude Code's JSON result ({"type":"result", "result":
// ..., "total_cost_usd": ...}) when out is one, and otherwise takes out as
// the answer's text.
func Unwrap(out string) (Reply, error) {
	var env struct {
		Type    string   `json:"type"`
		IsError bool     `json:"is_error"`
		Result  *string  `json:"result"`
		Cost    *float64 `json:"total_cost_usd"`
	}
	trimmed := strings.TrimSpace(out)
	if !strings.HasPrefix(trimmed, "{") || json.Unmarshal([]byte(trimmed), &env) != nil || env.Type != "result" || env.Result == nil {
		return Reply{Text: out}, nil
	}
	if env.IsError {
		return Reply{}, fmt.Errorf("the model runner reported an error: %s", *env.Result)
	}
	r := Reply{Text: *env.Result}
	if env.Cost != nil {
		r.CostUSD, r.Costed = *env.Cost, true
	}
	return r, nil
}

// Capped is a writer that keeps the first max bytes written to it.
type Capped struct {
	strings.Builder
	max int
	cut bool
}

// NewCapped keeps up to max bytes.
func NewCapped(max int) *Capped { return &Capped{max: max} }

// Write keeps what fits and reports all of p written.
func (c *Capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - c.Len(); n > room {
		c.cut = true
		p = p[:max(room, 0)]
	}
	c.Builder.Write(p)
	return n, nil
}

// Cut reports whether more was written than kept.
func (c *Capped) Cut() bool { return c.cut }

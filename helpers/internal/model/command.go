// Package model runs the model cairn asks for distillations and wiki
// compilations: a command that reads the prompt on stdin and prints the
// answer (`claude -p` by default), and the tolerant reading of a JSON
// object out of its answer.
package model

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
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

// Command runs argv with the prompt on stdin, in the scratch directory dir
// (so a headless run's files land in no project), with the pipeline's
// child mark in its environment so that none of cairn's hooks act in it,
// in a process group of its own that the context's end kills whole. An
// answer in Claude Code's JSON output (`--output-format json`) is
// unwrapped: its result is the text, and its cost is reported.
func Command(argv []string, dir string, timeout time.Duration) Func {
	return func(ctx context.Context, prompt string) (Reply, error) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdin = strings.NewReader(prompt)
		cmd.Env = append(os.Environ(), queue.ChildEnv+"=1")
		if err := os.MkdirAll(dir, 0o755); err == nil {
			cmd.Dir = dir
		}
		out, errOut := NewCapped(maxAnswer), NewCapped(4<<10)
		cmd.Stdout, cmd.Stderr = out, errOut
		cmd.WaitDelay = 5 * time.Second
		detach.Group(cmd)
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return Reply{}, fmt.Errorf("%s: no answer within %s", argv[0], timeout)
			}
			return Reply{}, fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(errOut.String()))
		}
		return Unwrap(out.String())
	}
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
}

// NewCapped keeps up to max bytes.
func NewCapped(max int) *Capped { return &Capped{max: max} }

// Write keeps what fits and reports all of p written.
func (c *Capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		if len(p) > room {
			c.Builder.Write(p[:room])
		} else {
			c.Builder.Write(p)
		}
	}
	return len(p), nil
}

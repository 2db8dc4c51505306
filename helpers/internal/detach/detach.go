// Package detach starts background processes that outlive the command that
// starts them, a hook above all: out of the hook's session (or console), so
// that nothing sent to the session reaches them, below normal priority, so
// that the session's own work goes first, and never waited for.
package detach

import (
	"fmt"
	"os/exec"
)

// DisabledEnv, set to 1 in the environment, stops cairn from starting
// background processes (tests run them by hand).
const DisabledEnv = "CAIRN_NO_BACKGROUND"

// ChildEnv marks a process that cairn's pipeline started (the worker, and
// the model it runs): in it, hooks do nothing and nothing is queued, so
// that a model call never distills itself.
const ChildEnv = "CAIRN_PIPELINE_CHILD"

// Disabled reports whether getenv's environment turns background
// processes off.
func Disabled(getenv func(string) string) bool { return getenv(DisabledEnv) == "1" }

// Nice is the niceness a detached process runs at on Unix (on Windows, the
// below-normal priority class).
const Nice = 10

// Start starts cmd detached and lets it go: the caller never waits for it
// (cmd.Wait must not be called) and may exit at once.
//
// On Unix the process leads a new session (setsid) and runs at niceness
// [Nice]; lowering its priority is best effort, done once it has started.
// On Windows it starts in a new process group, without a console
// (DETACHED_PROCESS), in the below-normal priority class; a job object the
// caller runs in still holds it (CREATE_BREAKAWAY_FROM_JOB is not asked
// for: it fails where the job forbids it). Whatever
// cmd.SysProcAttr holds already is kept: Start only adds to it.
func Start(cmd *exec.Cmd) error {
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	lower(cmd.Process.Pid)
	if err := cmd.Process.Release(); err != nil {
		return fmt.Errorf("release %s: %w", cmd.Path, err)
	}
	return nil
}

// Group makes cmd, an exec.CommandContext, run in a process group of its
// own on Unix, all of which is killed when its context ends, so that a
// timed-out command leaves none of its children behind (on Windows, the
// process alone is killed). Call it before cmd.Start.
func Group(cmd *exec.Cmd) { group(cmd) }

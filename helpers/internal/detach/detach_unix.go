//go:build unix

package detach

import (
	"os/exec"
	"syscall"
)

// prepare makes cmd start in a session of its own.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

// lower sets the started process pid to niceness Nice. It may have exited
// already, and a process that runs at normal priority does no harm: a
// failure is ignored. On Linux niceness belongs to each thread, and a Go
// program starts several before its parent gets here: lowerThreads
// lowers those too.
func lower(pid int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, Nice)
	lowerThreads(pid)
}

// group makes cmd lead a process group of its own, and its cancellation
// (its context's end) kill the whole group: a command that starts helpers
// of its own (a node launcher, claude's subprocesses) leaves none behind.
func group(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

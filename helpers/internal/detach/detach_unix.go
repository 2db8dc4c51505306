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
// failure is ignored.
func lower(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, Nice) }

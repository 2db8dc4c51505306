//go:build unix

package geminitest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the CLI in a process group of its own, so that a
// timeout kills it with the hooks, tools and relaunched Node it spawned.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

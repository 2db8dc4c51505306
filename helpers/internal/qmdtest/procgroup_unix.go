//go:build unix

package qmdtest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts qmd in its own process group so that a timeout
// kills the node process its launcher spawned too, not only the launcher.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

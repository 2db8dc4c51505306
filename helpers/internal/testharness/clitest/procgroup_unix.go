//go:build unix

package clitest

import (
	"os/exec"
	"syscall"
)

// SetProcessGroup starts cmd in its own process group so that cancelling
// it (a timeout) kills it together with everything it spawned: hooks,
// tools, a launcher's child.
func SetProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

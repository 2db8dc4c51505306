//go:build unix

package opencodetest

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the CLI in its own process group so that a timeout
// kills it together with the tools and hooks it spawned.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

//go:build !unix

package clitest

import "os/exec"

// SetProcessGroup is a no-op where process groups are not available;
// cancelling cmd then kills only its own process, and cmd.WaitDelay stops
// the wait for the pipes its children hold.
func SetProcessGroup(cmd *exec.Cmd) {}

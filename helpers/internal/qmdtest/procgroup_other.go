//go:build !unix

package qmdtest

import "os/exec"

// setProcessGroup is a no-op where process groups are not available; a
// timeout then kills only the launcher, and WaitDelay stops the wait for
// the pipes its child holds.
func setProcessGroup(cmd *exec.Cmd) {}

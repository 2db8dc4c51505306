//go:build !unix

package opencodetest

import "os/exec"

// setProcessGroup is a no-op where process groups are not available; a
// timeout then kills only the CLI process itself.
func setProcessGroup(cmd *exec.Cmd) {}

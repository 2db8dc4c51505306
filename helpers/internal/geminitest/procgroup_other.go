//go:build !unix

package geminitest

import "os/exec"

// setProcessGroup does nothing where there are no process groups: a
// timeout then kills the CLI's own process only.
func setProcessGroup(cmd *exec.Cmd) {}

//go:build windows

package detach

import (
	"os/exec"
	"syscall"
)

// Process creation flags that package syscall does not name.
const (
	detachedProcess          = 0x00000008 // DETACHED_PROCESS: no console, not the parent's
	belowNormalPriorityClass = 0x00004000 // BELOW_NORMAL_PRIORITY_CLASS
)

// flags are the creation flags of a detached process.
const flags = syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess | belowNormalPriorityClass

// prepare makes cmd start in a process group of its own, without a
// console, at below-normal priority.
func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= flags
}

// lower does nothing: the priority class is set at creation.
func lower(int) {}

// group: on Windows the process alone is killed when cmd's context ends
// (exec's default).
func group(*exec.Cmd) {}

//go:build windows

package detach

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestPrepareKeepsAttributes: Start adds its creation flags to
// cmd.SysProcAttr and keeps what the caller set (the handles of a lock
// passed down, above all).
func TestPrepareKeepsAttributes(t *testing.T) {
	attr := &syscall.SysProcAttr{CreationFlags: syscall.CREATE_UNICODE_ENVIRONMENT, AdditionalInheritedHandles: []syscall.Handle{42}}
	cmd := exec.Command("cmd.exe")
	cmd.SysProcAttr = attr
	prepare(cmd)
	want := uint32(syscall.CREATE_UNICODE_ENVIRONMENT | syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess | belowNormalPriorityClass)
	if cmd.SysProcAttr != attr || attr.CreationFlags != want || len(attr.AdditionalInheritedHandles) != 1 {
		t.Errorf("SysProcAttr = %+v; want flags %#x added to the caller's", cmd.SysProcAttr, want)
	}
}

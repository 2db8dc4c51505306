//go:build windows

package fsx

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// handoffUnlocks is true: a Windows lock belongs to the process that took
// it, and a child inherits the handle but not the lock.
const handoffUnlocks = true

// inheritWait bounds how long a child waits for its parent's
// [Lock.Handoff] before taking it that someone else holds the lock.
const inheritWait = 2 * time.Second

// allBytes locks the whole file, whatever its size: lock files hold
// nothing else (a LockFileEx lock is mandatory: it blocks reads and writes
// of the range through other handles).
const allBytes = ^uint32(0)

// tryLock takes the lock on f, exclusive or shared, without waiting; ok is
// false when another handle or process holds it. Whatever f held is let go
// first, as flock converts a lock: one handle never stacks two locks.
func tryLock(f *os.File, exclusive bool) (ok bool, err error) {
	err = lockEx(f, exclusive, windows.LOCKFILE_FAIL_IMMEDIATELY)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return false, nil
	}
	return err == nil, err
}

// waitLock takes the lock on f, exclusive or shared, waiting as long as it
// takes.
func waitLock(f *os.File, exclusive bool) error { return lockEx(f, exclusive, 0) }

func lockEx(f *os.File, exclusive bool, flags uint32) error {
	h := windows.Handle(f.Fd())
	_ = windows.UnlockFileEx(h, 0, allBytes, allBytes, new(windows.Overlapped)) // nothing held: ERROR_NOT_LOCKED
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(h, flags, 0, allBytes, allBytes, new(windows.Overlapped))
}

// unlock lets go of whatever lock f holds.
func unlock(f *os.File) error {
	err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, allBytes, allBytes, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_NOT_LOCKED) {
		return nil
	}
	return err
}

// pass is [Lock.PassTo].
func (l *Lock) pass(cmd *exec.Cmd) (uintptr, error) {
	h := l.f.Fd()
	if err := windows.SetHandleInformation(windows.Handle(h), windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT); err != nil {
		return 0, fmt.Errorf("pass lock %s: %w", l.name, err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, syscall.Handle(h))
	return h, nil
}

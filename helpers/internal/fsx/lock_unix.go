//go:build unix

package fsx

import (
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// handoffUnlocks is false: a child that inherits the descriptor shares the
// lock, so [Lock.Handoff] only closes this process's copy.
const handoffUnlocks = false

// inheritWait is zero: an inherited lock is held already, or not at all.
const inheritWait = 0

// tryLock takes the lock on f, exclusive or shared, without waiting; ok is
// false when another open file holds it. Asking again for the lock f holds
// converts it (not atomically).
func tryLock(f *os.File, exclusive bool) (ok bool, err error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err = unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// waitLock takes the lock on f, exclusive or shared, waiting as long as it
// takes.
func waitLock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// unlock lets go of whatever lock f holds.
func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// pass is [Lock.PassTo].
func (l *Lock) pass(cmd *exec.Cmd) (uintptr, error) {
	cmd.ExtraFiles = append(cmd.ExtraFiles, l.f)
	return uintptr(2 + len(cmd.ExtraFiles)), nil
}

// Package fsx owns the file-system primitives that keep cairn's committed
// files intact and its users safe: confined access under .cairn ([Root]:
// no link followed, no special file used, reads capped), atomic
// whole-file replacement (temp, fsync, rename, fsync directory) and
// advisory locks that the kernel releases when a process dies.
package fsx

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// tempMarker is part of every temporary file name Root.WriteAtomic creates, so
// Root.RemoveStaleTemps can find the leftovers of a process that died
// mid-write.
const tempMarker = ".cairn-tmp-"

// beforeRename, when set by a test, runs after the temporary file is written
// and synced and before it replaces the target.
var beforeRename func(tmpPath string)

// Lock is an exclusive advisory lock held on a lock file. The kernel drops
// it when the process exits, however it exits, so a lock file left behind by
// a killed process never blocks anyone: it is simply locked again.
type Lock struct {
	f    *os.File
	name string
}

// ErrLockTimeout is returned by [Acquire] when another process held the lock
// for longer than the wait allowed.
var ErrLockTimeout = errors.New("timed out waiting for lock")

// Acquire takes the exclusive lock on path (created if missing), waiting up
// to wait for another holder to release it.
func Acquire(path string, wait time.Duration) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	return lockFile(f, path, wait)
}

func lockFile(f *os.File, name string, wait time.Duration) (*Lock, error) {
	l := &Lock{f: f, name: name}
	if err := l.flock(unix.LOCK_EX, wait); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// flock takes the lock in mode (LOCK_EX or LOCK_SH), polling without
// blocking until wait has passed.
func (l *Lock) flock(mode int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		err := unix.Flock(int(l.f.Fd()), mode|unix.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("lock %s: %w", l.name, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("lock %s: %w", l.name, ErrLockTimeout)
		}
		time.Sleep(delay)
		if delay < 20*time.Millisecond {
			delay *= 2
		}
	}
}

// Exclusive turns a shared lock into an exclusive one, waiting up to wait
// for the other holders to let go. The change is not atomic: another
// process may take the lock exclusively in between, so whatever the
// caller read under the shared lock must be read again.
func (l *Lock) Exclusive(wait time.Duration) error { return l.flock(unix.LOCK_EX, wait) }

// Unlock lets go of the lock but keeps its file, to take it again with
// [Lock.Shared] or [Lock.Exclusive].
func (l *Lock) Unlock() error {
	if err := unix.Flock(int(l.f.Fd()), unix.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", l.name, err)
	}
	return nil
}

// Shared turns an exclusive lock back into a shared one (or takes it
// shared after [Lock.Unlock]), waiting for an exclusive holder.
func (l *Lock) Shared() error {
	if err := unix.Flock(int(l.f.Fd()), unix.LOCK_SH); err != nil {
		return fmt.Errorf("lock %s: %w", l.name, err)
	}
	return nil
}

func tryLockFile(f *os.File, name string) (*Lock, bool, error) {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock %s: %w", name, err)
	}
	return &Lock{f: f, name: name}, true, nil
}

// Release drops the lock. The lock file stays; it is reused next time.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	cerr := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock: %w", err)
	}
	return cerr
}

// FileID identifies one version of a file without reading it: size,
// modification and change times (nanoseconds) and inode. Any write, rename
// over or touch of the file changes it; equal IDs mean the file is unchanged.
type FileID struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"`
	Ctime int64  `json:"ctime"`
	Ino   uint64 `json:"ino"`
}

// File is the lock's open file, for a child process to inherit
// (exec.Cmd.ExtraFiles); see [Lock.Handoff].
func (l *Lock) File() *os.File { return l.f }

// Handoff closes this process's handle on the lock without unlocking it.
// Once a child has inherited the file, the lock stays held until the child
// releases it or exits, whatever this process does.
func (l *Lock) Handoff() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Inherited takes over a lock whose file descriptor a parent process
// passed down. It fails unless the descriptor holds the lock.
func Inherited(fd uintptr) (*Lock, error) {
	f := os.NewFile(fd, "inherited-lock")
	if f == nil {
		return nil, fmt.Errorf("no inherited lock on fd %d", fd)
	}
	// Asking again for a lock this description already holds succeeds at
	// once; it fails when someone else holds it.
	if err := unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("inherited lock on fd %d: %w", fd, err)
	}
	return &Lock{f: f}, nil
}

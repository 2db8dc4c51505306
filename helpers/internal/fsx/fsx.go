// Package fsx owns the file-system primitives that keep cairn's committed
// files intact: atomic whole-file replacement (temp, fsync, rename, fsync
// directory) and advisory locks that the kernel releases when a process dies.
package fsx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// tempMarker is part of every temporary file name WriteAtomic creates, so
// Root.RemoveStaleTemps can find the leftovers of a process that died
// mid-write.
const tempMarker = ".cairn-tmp-"

// beforeRename, when set by a test, runs after the temporary file is written
// and synced and before it replaces the target.
var beforeRename func(tmpPath string)

// WriteAtomic replaces path with data so that a reader, or a crash at any
// moment, sees either the old content or the new one, never a mix: it writes
// a temporary file in the same directory, syncs it, renames it over path and
// syncs the directory. The file keeps path's mode when path exists.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, true)
}

// ReplaceFile replaces path with data like [WriteAtomic] — readers see the
// old content or the new, never a mix — but without fsync: for disposable
// local state, where losing the last write to a power cut costs nothing
// and a sync costs milliseconds on a hook's path.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replace(path, data, perm, false)
}

func replace(path string, data []byte, perm os.FileMode, durable bool) error {
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+tempMarker+"*")
	if err != nil {
		return fmt.Errorf("create temp for %s: %w", base, err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", tmp, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if beforeRename != nil {
		beforeRename(tmp)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", base, err)
	}
	ok = true
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// SyncDir flushes a directory's entries (a rename or a new file) to disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}

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

// TryAcquire takes the lock on path only if nobody holds it; ok reports
// whether it did.
func TryAcquire(path string) (l *Lock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("open lock %s: %w", path, err)
	}
	return tryLockFile(f, path)
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

// StatID returns the FileID of path; a missing file has the zero ID.
func StatID(path string) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return FileID{}, nil
		}
		return FileID{}, fmt.Errorf("stat %s: %w", path, err)
	}
	return FileID{
		Size:  st.Size,
		Mtime: st.Mtim.Nano(),
		Ctime: st.Ctim.Nano(),
		Ino:   st.Ino,
	}, nil
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

// Package fsx owns the file-system primitives that keep cairn's committed
// files intact and its users safe: confined access under .cairn ([Root]:
// no link followed, no special file used, reads capped), atomic
// whole-file replacement (temp, fsync, rename, fsync directory) and
// advisory locks that the system releases when a process dies.
//
// It builds on every Unix (flock, openat with O_NOFOLLOW) and on Windows
// (LockFileEx, [os.Root] with checks of every component); the few
// guarantees that differ on Windows are said where they differ.
package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

// tempMarker is part of every temporary file name Root.WriteAtomic creates, so
// Root.RemoveStaleTemps can find the leftovers of a process that died
// mid-write.
const tempMarker = ".cairn-tmp-"

// IsTemp reports whether the file name (a base name) is one of the
// temporary files this package's writers create.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// TempPrefix begins the name of every temporary file this package's
// writers create to replace the file named base.
func TempPrefix(base string) string { return "." + base + tempMarker }

// beforeRename, when set by a test, runs after the temporary file is written
// and synced and before it replaces the target.
var beforeRename func(tmpPath string)

// fill has write write f, the temporary file tmp that will become name,
// syncs it when durable, and closes it; then a test's beforeRename runs.
func (r Root) fill(f *os.File, tmp, name string, write func(*os.File) error, durable bool) error {
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", r.display(name), err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", r.display(name), err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", r.display(name), err)
	}
	if beforeRename != nil {
		beforeRename(r.Path(tmp))
	}
	return nil
}

// Lock is an exclusive or shared advisory lock held on a lock file. The
// system drops it when the process exits, however it exits, so a lock file
// left behind by a killed process never blocks anyone: it is simply locked
// again.
//
// On Unix it is a flock(2) lock: it belongs to the open file, so a second
// open of the same lock file in one process is excluded too. On Windows it
// is a LockFileEx lock of the whole file: it belongs to the handle and the
// process, and it is mandatory, so a lock file must hold nothing else.
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
	return lockFile(f, path, true, wait)
}

// lockFile takes the lock on the open file f, exclusive or shared, and
// closes f when it cannot.
func lockFile(f *os.File, name string, exclusive bool, wait time.Duration) (*Lock, error) {
	l := &Lock{f: f, name: name}
	if err := l.lock(exclusive, wait); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// lock takes the lock, exclusive or shared, polling without blocking until
// wait has passed (at least one attempt is made).
func (l *Lock) lock(exclusive bool, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		ok, err := tryLock(l.f, exclusive)
		if err != nil {
			return fmt.Errorf("lock %s: %w", l.name, err)
		}
		if ok {
			return nil
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
func (l *Lock) Exclusive(wait time.Duration) error { return l.lock(true, wait) }

// Unlock lets go of the lock but keeps its file, to take it again with
// [Lock.Shared] or [Lock.Exclusive].
func (l *Lock) Unlock() error {
	if err := unlock(l.f); err != nil {
		return fmt.Errorf("unlock %s: %w", l.name, err)
	}
	return nil
}

// Shared turns an exclusive lock back into a shared one (or takes it
// shared after [Lock.Unlock]), waiting for an exclusive holder.
func (l *Lock) Shared() error {
	if err := waitLock(l.f, false); err != nil {
		return fmt.Errorf("lock %s: %w", l.name, err)
	}
	return nil
}

// tryLockFile takes the exclusive lock on f if nobody holds it; ok is false
// when someone does. f is closed unless the lock is taken.
func tryLockFile(f *os.File, name string) (l *Lock, ok bool, err error) {
	ok, err = tryLock(f, true)
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return nil, false, fmt.Errorf("lock %s: %w", name, err)
		}
		return nil, false, nil
	}
	return &Lock{f: f, name: name}, true, nil
}

// Release drops the lock. The lock file stays; it is reused next time.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	cerr := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock: %w", err)
	}
	return cerr
}

// FileID identifies one version of a file without reading it
// ([filestat.FileID]).
type FileID = filestat.FileID

// PassTo arranges for cmd, not started yet, to inherit the lock, and
// returns the number the child gives to [Inherited] (through its
// environment, say). Once cmd has started, call [Lock.Handoff]; if it
// fails to start, [Lock.Release].
//
// On Unix the lock's file goes in cmd.ExtraFiles and the number is its
// descriptor in the child; on Windows, where ExtraFiles does not exist,
// the handle is made inheritable and listed in
// cmd.SysProcAttr.AdditionalInheritedHandles, and the number is the
// handle, which the child inherits with the same value.
func (l *Lock) PassTo(cmd *exec.Cmd) (uintptr, error) { return l.pass(cmd) }

// Handoff closes this process's handle on the lock after [Lock.PassTo]
// gave it to a child that has started.
//
// On Unix it does not unlock: the lock stays held until the child
// releases it or exits, whatever this process does, so no other process
// can take it in between. On Windows a lock belongs to the process that
// took it and a child cannot inherit it, only the handle; Handoff unlocks,
// and the child takes the lock again through the handle in [Inherited].
// There, another process may take the lock between the two; the child
// then finds it held and must take it that someone else does the work.
func (l *Lock) Handoff() error {
	if l == nil || l.f == nil {
		return nil
	}
	var err error
	if handoffUnlocks {
		err = unlock(l.f)
	}
	cerr := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("unlock: %w", err)
	}
	return cerr
}

// Inherited takes over a lock a parent process passed down with
// [Lock.PassTo]; fd is the number PassTo returned. It fails unless this
// process then holds the lock exclusively.
//
// On Unix the lock is already held through the inherited descriptor, and
// asking again for it succeeds at once. On Windows the child locks the
// inherited handle itself, waiting a little (two seconds at most) for the
// parent's [Lock.Handoff].
func Inherited(fd uintptr) (*Lock, error) {
	f := os.NewFile(fd, "inherited-lock")
	if f == nil {
		return nil, fmt.Errorf("no inherited lock on fd %d", fd)
	}
	l := &Lock{f: f, name: fmt.Sprintf("inherited on fd %d", fd)}
	if err := l.lock(true, inheritWait); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// Owned reports whether the file at path, which os.Lstat described as fi,
// belongs to the user running this process: a directory that someone else
// made in a shared place (/tmp, C:\) is not one to trust. On Unix it
// compares owner and user ids (true when fi carries none: [filestat.Owned]);
// on Windows the owner's SID with the process user's, an owner that is the
// Administrators group counting when this process is a member (what an
// elevated process creates belongs to the group).
func Owned(path string, fi fs.FileInfo) bool { return owned(path, fi) }

// ReadMapped calls fn with the first size bytes of the open file f mapped
// into memory read-only, without copying them (mmap on Unix), and unmaps
// them when fn returns: fn must keep no part of data. Where files cannot
// be mapped it returns [errors.ErrUnsupported] without calling fn, and the
// caller reads the file instead.
//
// A file shortened by another process while it is mapped would make
// reading past its new end fault; that fault is returned as an error
// rather than killing the process. Map only files that writers replace
// (rename over) rather than rewrite in place, as cairn's are.
func ReadMapped(f *os.File, size int64, fn func(data []byte)) (err error) {
	if size <= 0 {
		fn(nil)
		return nil
	}
	if size != int64(int(size)) {
		return errors.ErrUnsupported
	}
	data, unmap, err := mapFile(f, int(size))
	if err != nil {
		return err
	}
	defer func() {
		if uerr := unmap(); err == nil && uerr != nil {
			err = fmt.Errorf("unmap %s: %w", f.Name(), uerr)
		}
	}()
	mapped.Store(&data[0], len(data))
	defer mapped.Delete(&data[0])
	if gerr := Guard(func() { fn(data) }); gerr != nil {
		// fn may have read other mappings too (a file mapped within
		// another's fn): the fault is not surely this file's.
		return fmt.Errorf("read %s: it, or a file read with it, changed while read (%w)", f.Name(), gerr)
	}
	return nil
}

// Evict lets the pages of data, the whole of what [ReadMapped] or
// [Root.MapFile] gave, go from the process's memory: a later read maps them
// again from the page cache. A pass over a big mapped file calls it now and
// then, so the file does not stay resident in the process as it is read.
// Data read rather than mapped is left alone.
func Evict(data []byte) {
	if isMapped(data) {
		evict(data)
	}
}

// isMapped reports whether data is the whole of a mapping ReadMapped has
// open.
func isMapped(data []byte) bool {
	if len(data) == 0 {
		return false
	}
	n, ok := mapped.Load(&data[0])
	return ok && n.(int) == len(data)
}

// mapped holds the mappings ReadMapped has open: their first byte's
// address and their length.
var mapped sync.Map

// Guard runs fn on the calling goroutine and returns a fault of fn's on
// mapped memory (a file shortened while mapped) as an error rather than
// letting it kill the process. Any goroutine that reads data from
// [ReadMapped] runs under Guard: the setting is the goroutine's own.
func Guard(fn func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if fault, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("fault at %#x", fault.Addr())
				return
			}
			panic(r)
		}
	}()
	fn()
	return nil
}

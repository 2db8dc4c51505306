//go:build unix

package toolgate

import (
	"syscall"
)

type sysProcAttr = syscall.SysProcAttr

// nice is the niceness of the background sync (detach.Nice).
const nice = 10

// startSync takes the sync's lock, if nobody holds it, and starts the
// background sync of root with it, detached (a session of its own, as
// detach.Start does): the lock stays held until the sync ends, so that
// the next hooks start no other.
func startSync(s *store, root string) {
	lock, err := s.lockFile(syncLock)
	if err != nil {
		return
	}
	defer lock.Close() // the child holds the lock on its own copy
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return // a sync runs (EWOULDBLOCK), or no lock to take here
	}
	_ = spawn(root, lock, &syscall.SysProcAttr{Setsid: true})
}

// lower lowers the started process to niceness nice, best effort (on
// Linux, the threads it started already keep theirs).
func lower(pid int) { _ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice) }

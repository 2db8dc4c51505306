//go:build windows

package toolgate

import "syscall"

type sysProcAttr = syscall.SysProcAttr

// Process creation flags that package syscall does not name (detach's).
const (
	detachedProcess          = 0x00000008 // DETACHED_PROCESS: no console, not the parent's
	belowNormalPriorityClass = 0x00004000 // BELOW_NORMAL_PRIORITY_CLASS
)

// startSync starts the background sync of root detached, as detach.Start
// does, when its lock file is one to use (see [store.lockFile]). A lock
// cannot be handed to a child here without the handle's inheritance that
// package syscall does not offer: the child takes the sync's lock itself,
// and ends at once when another sync holds it.
func startSync(s *store, root string) {
	lock, err := s.lockFile(syncLock)
	if err != nil {
		return
	}
	lock.Close()
	_ = spawn(root, nil, &syscall.SysProcAttr{
		CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess | belowNormalPriorityClass,
	})
}

// lower does nothing: the priority class is set at creation.
func lower(int) {}

//go:build unix && !linux

package detach

// lowerThreads does nothing here: setpriority(PRIO_PROCESS) sets the
// whole process.
func lowerThreads(int) {}

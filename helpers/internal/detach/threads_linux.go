package detach

import (
	"os"
	"strconv"
	"syscall"
)

// lowerThreads sets every thread of process pid to niceness Nice: on Linux
// setpriority(PRIO_PROCESS, pid) sets the thread whose id is pid alone,
// and a thread takes the niceness of the one that created it. It looks
// twice, for threads created by one it had not lowered yet.
func lowerThreads(pid int) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	for range 2 {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if tid, err := strconv.Atoi(e.Name()); err == nil && tid != pid {
				_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, Nice)
			}
		}
	}
}

//go:build unix

package review

import "syscall"

// cpuTime is the CPU time, user and system, that the process and the
// children it waited for (git) have used, in seconds: what a loaded
// machine's wall clock does not show.
func cpuTime() float64 {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return float64(self.Utime.Nano()+self.Stime.Nano()+children.Utime.Nano()+children.Stime.Nano()) / 1e9
}

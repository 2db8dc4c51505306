//go:build unix

package ui

import "syscall"

// cpuTime is the CPU time the process has used, user and system, in
// seconds (what a loaded machine's wall clock does not show).
func cpuTime() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
}

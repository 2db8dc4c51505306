//go:build unix

package knowledge

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system, every thread) this process
// has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per operation of the loop that follows
// (call it just before the loop, and the returned func just after): on a
// busy machine the wall time per operation says more about the other
// processes than about the code.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

//go:build linux

package model

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dieWithParent has the kernel kill the model when the thread that
// started it ends: the worker's death, a kill -9 included.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// startTime is when pid started, in clock ticks since boot (field 22 of
// /proc/PID/stat); 0 when it cannot be read.
func startTime(pid int) uint64 {
	f := statFields(pid)
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// statFields are the fields of /proc/PID/stat after the command's name:
// the state first; nil when the process is gone.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// killCall kills every process of the call: those whose environment names
// it in CallEnv, wherever they are (another process group, another
// session), and waits for them to die.
func killCall(call string) { killTagged(func(v string) bool { return v == call }) }

// Reap kills what model calls left running when the process that made
// them died (a worker killed mid-call: Pdeathsig kills the model itself,
// not what it started), and reports how many it killed. The worker runs
// it before it asks the model anything.
func Reap() int {
	return killTagged(func(v string) bool {
		parts := strings.SplitN(v, ".", 3)
		if len(parts) != 3 {
			return false
		}
		pid, err1 := strconv.Atoi(parts[0])
		start, err2 := strconv.ParseUint(parts[1], 10, 64)
		return err1 == nil && err2 == nil && startTime(pid) != start // gone, or its pid reused
	})
}

// killRounds bounds how many times killTagged looks again for processes
// that a dying one started meanwhile.
const killRounds = 8

// killTagged kills, with SIGKILL, the processes whose CallEnv value
// matches, looking again until none is left, waits for each to die, and
// counts them.
func killTagged(match func(string) bool) int {
	n := 0
	for round := 0; round < killRounds; round++ {
		pids := tagged(match)
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		for _, pid := range pids {
			waitGone(pid)
		}
	}
	return n
}

// maxEnviron caps what is read of one process's environment.
const maxEnviron = 1 << 20

// tagged lists the processes (this one excepted) whose environment holds
// CallEnv with a value match accepts. Another user's processes, whose
// environment cannot be read, are never among them.
func tagged(match func(string) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	prefix := CallEnv + "="
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		f, err := os.Open("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(f, maxEnviron))
		f.Close()
		for _, kv := range strings.Split(string(data), "\x00") {
			if v, ok := strings.CutPrefix(kv, prefix); ok && match(v) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// waitGone waits, a second at most, until pid has died (gone, or a zombie
// its parent has yet to reap). SIGKILL takes effect at once but not
// synchronously; a process stuck in the kernel may outlast the wait.
func waitGone(pid int) {
	for i := 0; i < 1000; i++ {
		f := statFields(pid)
		if len(f) == 0 || f[0] == "Z" || f[0] == "X" {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

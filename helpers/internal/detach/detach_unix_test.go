//go:build unix

package detach

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// childEnv, set, makes TestChild the body of a detached child.
const childEnv = "CAIRN_DETACH_CHILD"

// TestChild is not a test: run with childEnv set, it waits for stdin to
// close (by then its parent has set its priority), then prints its pid,
// process group, session (Linux only, else -1) and niceness.
func TestChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		return
	}
	io.Copy(io.Discard, os.Stdin)
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		fmt.Println("getpriority:", err)
		os.Exit(3)
	}
	nice := prio
	if runtime.GOOS == "linux" || runtime.GOOS == "android" {
		nice = 20 - prio // the raw system call answers 20 - nice
	}
	fmt.Println(os.Getpid(), syscall.Getpgrp(), session(), nice)
	os.Exit(0)
}

// session is the session id of this process, read from /proc on Linux;
// -1 elsewhere.
func session() int {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return -1
	}
	s := string(b)
	// pid (comm) state ppid pgrp session ...
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 {
		return -1
	}
	n, err := strconv.Atoi(f[3])
	if err != nil {
		return -1
	}
	return n
}

// TestStartDetaches: the child leads a new session and process group, runs
// at niceness Nice, and is not waited for.
func TestStartDetaches(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	err = Start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		t.Fatal(err)
	}
	inW.Close() // the child goes on
	out, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	var pid, pgrp, sid, nice int
	if _, err := fmt.Sscan(string(out), &pid, &pgrp, &sid, &nice); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	if pid == os.Getpid() {
		t.Fatalf("child pid %d is ours", pid)
	}
	if pgrp != pid || pgrp == syscall.Getpgrp() {
		t.Errorf("child process group %d (pid %d, ours %d); want its own", pgrp, pid, syscall.Getpgrp())
	}
	if runtime.GOOS == "linux" && sid != pid {
		t.Errorf("child session %d; want its own (%d)", sid, pid)
	}
	if nice != Nice {
		t.Errorf("child niceness %d; want %d", nice, Nice)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("Wait on a released process succeeded")
	}
}

// TestPrepareKeepsAttributes: Start adds to cmd.SysProcAttr, never replaces
// it.
func TestPrepareKeepsAttributes(t *testing.T) {
	attr := &syscall.SysProcAttr{Noctty: true}
	cmd := exec.Command("true")
	cmd.SysProcAttr = attr
	prepare(cmd)
	if cmd.SysProcAttr != attr || !attr.Setsid || !attr.Noctty {
		t.Errorf("SysProcAttr = %+v; want the caller's with Setsid added", cmd.SysProcAttr)
	}
}

package model

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dead reports whether pid has ended (gone, or a zombie nobody reaped).
func dead(pid int) bool {
	f := statFields(pid)
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// issue 24: a 1 s timeout stops a 5 s model, and a child the model
// started in a session of its own (setsid: out of the model's process
// group, which the group kill misses) dies with it.
func TestCommandTimeoutKillsSetsidChild(t *testing.T) {
	needSh(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	isolate(t)
	dir := t.TempDir()
	t.Setenv("PIDS", dir)
	script := `cat >/dev/null
echo $$ > "$PIDS/model.pid"
mkfifo "$PIDS/ready"
setsid sh -c 'echo $$ > "$PIDS/child.pid"; echo up > "$PIDS/ready"; exec sleep 60' </dev/null >/dev/null 2>&1 &
read up < "$PIDS/ready"
exec sleep 5`
	ask := Command([]string{"sh", "-c", script}, filepath.Join(dir, "scratch"), time.Second)
	_, err := ask(context.Background(), "p")
	modelPID, childPID := readPID(t, filepath.Join(dir, "model.pid")), readPID(t, filepath.Join(dir, "child.pid"))
	t.Cleanup(func() {
		for _, pid := range []int{modelPID, childPID} {
			if !dead(pid) {
				exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
			}
		}
	})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("the call: %v", err)
	}
	if !dead(modelPID) {
		t.Errorf("the model (%d) outlived its timeout", modelPID)
	}
	if !dead(childPID) {
		t.Errorf("the model's setsid child (%d) outlived the timeout", childPID)
	}
}

// Reap kills what a dead owner's model call left running, and leaves a
// live owner's calls alone.
func TestReap(t *testing.T) {
	needSh(t)
	isolate(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	start := func(owner string) *exec.Cmd {
		cmd := exec.Command("sh", "-c", "exec sleep 60")
		cmd.Env = append(os.Environ(), CallEnv+"="+owner)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	orphan := start(fmt.Sprintf("%d.1.abc", gone.Process.Pid))
	live := start(fmt.Sprintf("%d.%d.def", os.Getpid(), startTime(os.Getpid())))
	if n := Reap(); n < 1 {
		t.Errorf("Reap killed %d processes", n)
	}
	if !dead(orphan.Process.Pid) {
		t.Error("the dead owner's model is still running")
	}
	if dead(live.Process.Pid) {
		t.Error("a live owner's model was killed")
	}
}

// BenchmarkKillCall is what every model call's end costs on Linux: one
// look through /proc for the call's processes.
func BenchmarkKillCall(b *testing.B) {
	for b.Loop() {
		killCall("no-such-call")
	}
}

//go:build unix

package toolgate

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// pullLog writes, at dir's log, a log a pull brought: the map is then
// behind it, and no line anchors a note to b.go.
func pullLog(t *testing.T, dir string) {
	t.Helper()
	log := `{"key":"fact-pulled","type":"fact","content":"a pulled fact on c.go","ts":1,"files":["c.go"]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
}

// After a pull, a log the gate cannot read safely and quickly sends even
// a call on a file nothing anchors to the full hook: a FIFO, a link, a
// sparse log of 1 GB, a line of 10 MB. The gate neither hangs nor panics.
func TestQuietAfterPullRefusesAHostileLog(t *testing.T) {
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	logOf := func(dir string) string { return filepath.Join(dir, ".cairn", "knowledge.jsonl") }
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir, outside string)
	}{
		{"a FIFO", func(t *testing.T, dir, _ string) {
			must(t, os.Remove(logOf(dir)))
			must(t, syscall.Mkfifo(logOf(dir), 0o644))
		}},
		{"a link out of the project", func(t *testing.T, dir, outside string) {
			must(t, os.Rename(logOf(dir), filepath.Join(outside, "knowledge.jsonl")))
			must(t, os.Symlink(filepath.Join(outside, "knowledge.jsonl"), logOf(dir)))
		}},
		{"a link inside .cairn", func(t *testing.T, dir, _ string) {
			must(t, os.Rename(logOf(dir), filepath.Join(dir, ".cairn", "other.jsonl")))
			must(t, os.Symlink("other.jsonl", logOf(dir)))
		}},
		{"a sparse log of 1 GB", func(t *testing.T, dir, _ string) {
			must(t, os.Truncate(logOf(dir), 1<<30))
		}},
		{"a line of 10 MB", func(t *testing.T, dir, _ string) {
			line := `{"key":"fact-long","type":"fact","content":"` + strings.Repeat("x", 10<<20) + `","ts":1}` + "\n"
			must(t, os.WriteFile(logOf(dir), []byte(line), 0o644))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, outside := gateProject(t), t.TempDir()
			pullLog(t, dir)
			if !quiet(claudeAgent, payload(dir, "Read", `{"file_path":"b.go"}`)) {
				t.Fatal("before the trap: a call on a file nothing anchors went to the full hook")
			}
			c.setup(t, dir, outside)
			if quiet(claudeAgent, payload(dir, "Read", `{"file_path":"b.go"}`)) {
				t.Error("quiet answered")
			}
		})
	}
}

// A call the gate answers after a pull starts the background sync, as
// the full hook would: one at a time (a sync that holds its lock starts
// no other), none with background runs off, none when the map is current.
func TestQuietAfterPullStartsTheSync(t *testing.T) {
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	t.Setenv(noBackgroundEnv, "")
	t.Setenv(childEnv, "")
	var started []string
	var held []int
	release := func() {
		for _, fd := range held {
			syscall.Close(fd)
		}
		held = nil
	}
	was := spawn
	spawn = func(root string, lock *os.File, _ *sysProcAttr) error {
		// The sync holds the lock it is handed until it ends.
		fd, err := syscall.Dup(int(lock.Fd()))
		if err != nil {
			return err
		}
		held = append(held, fd)
		started = append(started, root)
		return nil
	}
	t.Cleanup(func() { spawn = was; release() })
	call := func(dir string) {
		t.Helper()
		if !quiet(claudeAgent, payload(dir, "Read", `{"file_path":"b.go"}`)) {
			t.Fatal("a call on a file nothing anchors went to the full hook")
		}
	}

	dir := gateProject(t)
	call(dir)
	if len(started) != 0 {
		t.Fatalf("a sync started with the map current: %v", started)
	}
	pullLog(t, dir)
	call(dir)
	if len(started) != 1 || started[0] != dir {
		t.Fatalf("after a pull, the syncs started: %v, want one of %s", started, dir)
	}
	call(dir)
	if len(started) != 1 {
		t.Fatalf("a second sync started while the first holds its lock: %v", started)
	}
	release()
	t.Setenv(noBackgroundEnv, "1")
	call(dir)
	if len(started) != 1 {
		t.Fatalf("a sync started with CAIRN_NO_BACKGROUND=1: %v", started)
	}
	t.Setenv(noBackgroundEnv, "")
	call(dir)
	if len(started) != 2 {
		t.Fatalf("once the sync ended, the next call started none: %v", started)
	}
}

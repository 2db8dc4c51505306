package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// A fresh clone of a project with a big log and no cache: the session
// start answers at once from a bounded read of the log and starts a
// background sync, whose cache the next session start uses; nothing of a
// build is left behind.
func TestStartBuildsCacheInBackground(t *testing.T) {
	bin := cairntest.Binary(t)
	dir := filepath.Join(t.TempDir(), "a project #1")
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, dir, "init", "-q")
	f, err := os.Create(filepath.Join(dir, ".cairn", "knowledge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const n = 6000 // past what a hook rebuilds itself
	for i := range n {
		fmt.Fprintf(w, `{"key":"fact-n%05d","type":"fact","content":"retry queue note %d: the worker backs off with jitter after a timeout, then drains","ts":%d}`+"\n", i, i, 1700000000+i)
	}
	w.Flush()
	f.Close()
	hook := func(background bool) string {
		t.Helper()
		cmd := exec.Command(bin, "hook", "SessionStart")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"SessionStart","source":"startup"}`, dir))
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CAIRN_NO_BACKGROUND=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, "CAIRN_DIR=")
		if !background {
			// The run that follows would start a background sanitize,
			// still writing when the test's directory is removed.
			cmd.Env = append(cmd.Env, "CAIRN_NO_BACKGROUND=1")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("hook: %v", err)
		}
		return string(out)
	}
	if out := hook(true); !strings.Contains(out, "still being built") || !strings.Contains(out, "untrusted-knowledge") {
		t.Fatalf("first session start:\n%s", out)
	}
	// The background sync holds its lock while it runs.
	lock, err := fsx.Acquire(filepath.Join(dir, ".cairn", "cache", "sync.lock"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	lock.Release()
	if out := hook(false); !strings.Contains(out, fmt.Sprintf("of %d team entries", n)) || strings.Contains(out, "still being built") {
		t.Fatalf("session start after the background sync:\n%s", out)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".cairn", "cache", "index.db.build-*")); len(m) > 0 {
		t.Fatalf("build files left: %v", m)
	}
}

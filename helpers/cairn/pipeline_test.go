//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pipelineHome is a HOME whose config turns the session pipeline on with
// model command argv, and the environment that uses it.
func pipelineHome(t *testing.T, argv ...string) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	writeModel(t, home, argv...)
	env = append(append(os.Environ(), testenv.Home(home)...),
		"CAIRN_NO_BACKGROUND=1", "CLAUDE_PROJECT_DIR=", "CAIRN_PIPELINE_CHILD=")
	return home, env
}

func writeModel(t *testing.T, home string, argv ...string) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"pipeline": true, "model_command": argv})
	dir := filepath.Join(home, ".config", "cairn")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A worker killed (SIGKILL) while the model answers leaves its task
// claimed; the next worker finds it and distills the session (the first
// kill never makes a task poison). The model dies with the worker
// (Pdeathsig), and what it started in a session of its own (setsid) is
// killed by the next worker (issue 24). Producers never wait on a worker.
func TestPipelineWorkerKilled(t *testing.T) {
	bin := cairntest.Binary(t)
	marks := t.TempDir()
	home, env := pipelineHome(t, "sh", "-c", `cat >/dev/null
setsid sh -c 'echo $$ > "$MARKS/child.tmp"; mv "$MARKS/child.tmp" "$MARKS/child.pid"; exec sleep 600' </dev/null >/dev/null 2>&1 &
echo $$ > "$MARKS/model.tmp"; mv "$MARKS/model.tmp" "$MARKS/model.pid"
exec sleep 600`)
	env = append(env, "MARKS="+marks)
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	transcript := filepath.Join(repo, "transcript.jsonl")
	data, err := os.ReadFile("../scenarios/testdata/script/pipeline_loop.txtar")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(data), "-- transcript.jsonl --\n")
	os.WriteFile(transcript, []byte(body), 0o644)
	payload, _ := json.Marshal(map[string]any{"session_id": "26e7e04b-f769-409a-a007-3b9794e3bc9d", "transcript_path": transcript,
		"cwd": repo, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})

	hook := exec.Command(bin, "hook", "SessionEnd")
	hook.Dir, hook.Env, hook.Stdin = repo, env, bytes.NewReader(payload)
	if out, err := hook.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("SessionEnd: %v %q", err, out)
	}
	queue := filepath.Join(home, ".local", "state", "cairn", "queue")
	if _, err := os.Stat(filepath.Join(queue, "26e7e04b-f769-409a-a007-3b9794e3bc9d.task")); err != nil {
		t.Fatalf("SessionEnd queued nothing: %v", err)
	}

	worker := exec.Command(bin, "pipeline", "work")
	worker.Dir, worker.Env = repo, env
	var werr bytes.Buffer
	worker.Stderr = &werr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	var modelPID, childPID int
	for modelPID == 0 || childPID == 0 {
		if time.Now().After(deadline) {
			worker.Process.Kill()
			t.Fatalf("the model never started; worker said: %s", werr.String())
		}
		if b, err := os.ReadFile(filepath.Join(marks, "model.pid")); err == nil {
			modelPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if b, err := os.ReadFile(filepath.Join(marks, "child.pid")); err == nil {
			childPID, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		time.Sleep(20 * time.Millisecond) // polling for the model's start, not timing
	}
	t.Cleanup(func() {
		for _, pid := range []int{modelPID, childPID} {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	worker.Process.Kill()
	worker.Wait()
	if _, err := os.Stat(filepath.Join(queue, "work", "26e7e04b-f769-409a-a007-3b9794e3bc9d.task")); err != nil {
		t.Fatalf("the killed worker's claim is gone: %v", err)
	}

	answer := filepath.Join(t.TempDir(), "answer.txt")
	_, rest, _ := strings.Cut(string(data), "-- answer.txt --\n")
	ans, _, _ := strings.Cut(rest, "-- transcript.jsonl --")
	os.WriteFile(answer, []byte(ans), 0o644)
	writeModel(t, home, "sh", "-c", `cat >/dev/null; cat "$MODEL_ANSWER"`)
	again := exec.Command(bin, "pipeline", "work")
	again.Dir, again.Env = repo, append(env, "MODEL_ANSWER="+answer)
	out, err := again.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "distilled: 1 decisions, 1 failures, 1 handoff items, 1 learnings") {
		t.Fatalf("the next worker: %v\n%s", err, out)
	}
	if runtime.GOOS == "linux" {
		if !strings.Contains(string(out), "left running") {
			t.Errorf("the next worker did not say it killed the dead call's processes:\n%s", out)
		}
		for name, pid := range map[string]int{"model": modelPID, "its setsid child": childPID} {
			if !ended(pid) {
				t.Errorf("the killed worker's %s (%d) is still running", name, pid)
			}
		}
	}
	var done struct {
		Attempts  int  `json:"attempts"`
		Distilled bool `json:"distilled"`
	}
	b, _ := os.ReadFile(filepath.Join(queue, "done", "26e7e04b-f769-409a-a007-3b9794e3bc9d.task"))
	if json.Unmarshal(b, &done) != nil || !done.Distilled || done.Attempts != 2 {
		t.Errorf("done record: %s", b)
	}
}

// ended reports whether process pid has ended: gone, or a zombie its
// parent has yet to reap (Linux: /proc).
func ended(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] == "Z" || f[0] == "X"
}

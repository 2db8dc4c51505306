//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// Issue 24: a FIFO in the person's own directories (cairn's queue under
// $XDG_STATE_HOME, the knowledge directory, a transcript a payload names)
// hung hooks and the worker, which opened it before checking it was a
// regular file. Each test makes one, runs the real binary under a bound
// and fails (rather than hangs) when it does not finish.

// fifoBound stops a process that blocks on a FIFO: not a timing
// assertion, only how long a regression takes to be reported.
const fifoBound = 30 * time.Second

// personalEnv is a person's environment with the pipeline on: HOME and
// every XDG directory in a fresh temporary directory, no background
// process started.
func personalEnv(t *testing.T) (home string, env []string) {
	t.Helper()
	home = t.TempDir()
	env = append(trustEnv(home),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"CAIRN_PIPELINE_CHILD=",
		"GEMINI_CLI_TRUSTED_FOLDERS_PATH=")
	cfg, _ := json.Marshal(map[string]any{"pipeline": true, "model_command": []string{"sh", "-c", "cat >/dev/null; echo '{}'"}})
	dir := filepath.Join(home, ".config", "cairn")
	noErr(t, os.MkdirAll(dir, 0o755))
	noErr(t, os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644))
	return home, env
}

// envGetenv reads env as os.Getenv reads the process's.
func envGetenv(env []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val
			}
		}
		return v
	}
}

// fifoRepo is a git repository on branch main with a transcript.
func fifoRepo(t *testing.T, env []string) (repo, transcript string) {
	t.Helper()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	noErr(t, err)
	cmd := exec.Command("git", "init", "-q", "-b", "main", repo)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	transcript = filepath.Join(repo, "transcript.jsonl")
	noErr(t, os.WriteFile(transcript, []byte(`{"type":"user","sessionId":"s-fifo","message":{"role":"user","content":"hello"}}`+"\n"), 0o644))
	return repo, transcript
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	noErr(t, os.MkdirAll(filepath.Dir(path), 0o755))
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

// fifoHook runs `cairn hook AGENT EVENT` in repo with a payload of the
// session s-fifo holding fields, under fifoBound, and checks what every
// hook run must be.
func fifoHook(t *testing.T, env []string, repo, agent, event string, fields map[string]any) {
	t.Helper()
	payload := map[string]any{"session_id": "s-fifo", "cwd": repo, "hook_event_name": event}
	for k, v := range fields {
		payload[k] = v
	}
	b, err := json.Marshal(payload)
	noErr(t, err)
	checkHook(t, event, runProc(t, env, repo, b, fifoBound, cairntest.Binary(t), "hook", agent, event))
}

// TestFIFODoneRecordStop: a FIFO as the session's done record, read by the
// Stop hook's growth gate with the pipeline on.
func TestFIFODoneRecordStop(t *testing.T) {
	t.Parallel()
	home, env := personalEnv(t)
	repo, transcript := fifoRepo(t, env)
	mkfifo(t, filepath.Join(home, ".local", "state", "cairn", "queue", "done", "s-fifo.task"))
	fifoHook(t, env, repo, "claude", "Stop", map[string]any{"transcript_path": transcript,
		"last_assistant_message": "Done.\nLEARNED: the retry budget is three attempts"})
}

// TestFIFOHandoffSessionStart: a FIFO as the branch's handoff file, read
// at SessionStart.
func TestFIFOHandoffSessionStart(t *testing.T) {
	t.Parallel()
	_, env := personalEnv(t)
	repo, transcript := fifoRepo(t, env)
	u, err := userconf.Load(envGetenv(env))
	p, ok := pipeline.PersonalFor(u, err, repo)
	if !ok {
		t.Fatal("no personal knowledge directory")
	}
	noErr(t, p.WriteHandoff(pipeline.Handoff{Branch: "main", Items: []string{"finish the retry budget"}}))
	handoffs, _ := filepath.Glob(filepath.Join(p.Dir, "handoff", "*.md"))
	if len(handoffs) != 1 {
		t.Fatalf("handoff files: %v", handoffs)
	}
	mkfifo(t, handoffs[0])
	fifoHook(t, env, repo, "claude", "SessionStart", map[string]any{"transcript_path": transcript, "source": "startup"})
}

// TestFIFOClaimedTaskWorker: a FIFO among the claimed tasks (queue/work)
// when `cairn pipeline work` starts.
func TestFIFOClaimedTaskWorker(t *testing.T) {
	t.Parallel()
	home, env := personalEnv(t)
	repo, _ := fifoRepo(t, env)
	mkfifo(t, filepath.Join(home, ".local", "state", "cairn", "queue", "work", "s-fifo.task"))
	p := runProc(t, env, repo, nil, fifoBound, cairntest.Binary(t), "pipeline", "work")
	if !p.finished {
		t.Fatalf("cairn pipeline work did not finish (stopped after %v)", fifoBound)
	}
}

// TestFIFOTranscriptGeminiAfterAgent: a payload whose transcript_path is a
// FIFO (Gemini CLI's AfterAgent reads the last reply from it).
func TestFIFOTranscriptGeminiAfterAgent(t *testing.T) {
	t.Parallel()
	_, env := personalEnv(t)
	repo, _ := fifoRepo(t, env)
	fifo := filepath.Join(repo, "chat.jsonl")
	mkfifo(t, fifo)
	fifoHook(t, env, repo, "gemini", "AfterAgent", map[string]any{"transcript_path": fifo,
		"prompt_response": "LEARNED: the retry budget is three attempts"})
}

// TestFIFOTranscriptPreCompact: a payload whose transcript_path is a FIFO
// at PreCompact (the compaction capture reads it).
func TestFIFOTranscriptPreCompact(t *testing.T) {
	t.Parallel()
	_, env := personalEnv(t)
	repo, _ := fifoRepo(t, env)
	if p := runProc(t, env, repo, nil, fifoBound, cairntest.Binary(t), "add", "learned", "the retry budget is three attempts"); p.code != 0 {
		t.Fatalf("cairn add: %d %s", p.code, p.stderr)
	}
	fifo := filepath.Join(repo, "chat.jsonl")
	mkfifo(t, fifo)
	fifoHook(t, env, repo, "claude", "PreCompact", map[string]any{"transcript_path": fifo, "trigger": "auto"})
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

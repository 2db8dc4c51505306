//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// One rule (package projroot) names the project in every path of the real
// binary: `cairn --dir sub add`, the capture hook's accept path (in an
// init) with CAIRN_DIR=sub, and the session pipeline's task of a reply
// with nothing to capture, queued by the reject path in hookgate's init
// and by the full hook (cairn --dir sub hook Stop) alike.
func TestOneProjectRule(t *testing.T) {
	bin := cairntest.Binary(t)
	home, env := pipelineHome(t, "true")
	repo := t.TempDir()
	cairntest.Git(t, repo, "init", "-q", "-b", "main")
	sub := filepath.Join(repo, "sub")
	os.MkdirAll(sub, 0o755)
	run := func(stdin []byte, extra []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, append(append([]string{}, env...), extra...), bytes.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		return out.String()
	}
	run(nil, nil, "--dir", "sub", "add", "decision", "ship the api behind a flag")
	if !strings.Contains(run(payloadWith("PostToolUseFailure", repo), []string{"CAIRN_DIR=sub", "CLAUDE_PROJECT_DIR=" + repo},
		"hook", "PostToolUseFailure"), "recorded 1 learned") {
		t.Errorf("the accept path recorded nothing")
	}
	log, _ := os.ReadFile(filepath.Join(sub, ".cairn", "knowledge.jsonl"))
	if !bytes.Contains(log, []byte("ship the api")) || !bytes.Contains(log, []byte("fail-open capture survives")) {
		t.Errorf("sub's log lacks the add or the hook's capture:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn")); err == nil {
		t.Errorf("the repository's root got a .cairn")
	}

	reply := func(session string) []byte {
		b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": "t.jsonl", "cwd": repo,
			"hook_event_name": "Stop", "last_assistant_message": "nothing typed here"})
		return b
	}
	run(reply("gate"), []string{"CAIRN_DIR=sub"}, "hook", "Stop")
	run(reply("full"), nil, "--dir", "sub", "hook", "Stop")
	dir := filepath.Join(home, ".local", "state", "cairn", "queue")
	var tasks []queue.Task
	for _, s := range []string{"gate", "full"} {
		var task queue.Task
		if err := queue.ReadTask(filepath.Join(dir, queue.Name(s)), &task); err != nil {
			t.Fatalf("session %s: %v", s, err)
		}
		if task.Project != sub || task.Transcript != filepath.Join(repo, "t.jsonl") || task.Cwd != repo {
			t.Errorf("session %s: task %+v, want project %s", s, task, sub)
		}
		tasks = append(tasks, task)
	}
	if tasks[0].Agent != tasks[1].Agent || tasks[0].Reason != tasks[1].Reason {
		t.Errorf("the gate's task %+v, the full hook's %+v", tasks[0], tasks[1])
	}
}

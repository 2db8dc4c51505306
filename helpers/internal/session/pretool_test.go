package session_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// claudeOut is Claude Code's hook output, as much as these tests read.
type claudeOut struct {
	SystemMessage      string `json:"systemMessage"`
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		AdditionalContext        string `json:"additionalContext"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

func claudeCall(t *testing.T, e record.Env, name string, payload map[string]any) (claudeOut, string) {
	t.Helper()
	payload["hook_event_name"] = name
	data, _ := json.Marshal(payload)
	out := session.Hook(claude.Adapter{}, name, bytes.NewReader(data), e)
	var o claudeOut
	if len(out) > 0 {
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("%s: output %q: %v", name, out, err)
		}
	}
	return o, string(out)
}

func tool(dir, sess, name string, input map[string]any) map[string]any {
	return map[string]any{"session_id": sess, "cwd": dir, "tool_name": name, "tool_input": input}
}

// anchoredRepo is a repository with three files, a note anchored to one,
// a must-check on a directory and one on a command, and a note on
// nothing.
func anchoredRepo(t *testing.T) (string, record.Env, map[string]knowledge.Entry) {
	t.Helper()
	dir, e := repo(t)
	for _, f := range []string{"payments/client.go", "db/migrations/0001.sql", "README.md"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(typ, content string, files ...string) knowledge.Entry {
		return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, TS: 1700000000, Files: files}
	}
	es := map[string]knowledge.Entry{
		"retry":     mk("learned", "the retry loop must watch the request context or it spins after cancel", "payments/client.go"),
		"migration": mk("must-check", "dry-run every migration before editing it", "db/migrations"),
		"terraform": mk("must-check", "never run `terraform apply` without a reviewed plan"),
		"plain":     mk("fact", "the staging database is reset every night"),
	}
	var all []knowledge.Entry
	for _, en := range es {
		all = append(all, en)
	}
	if _, err := knowledge.Open(dir).Insert(all); err != nil {
		t.Fatal(err)
	}
	return dir, e, es
}

// Before a tool touches a file, the notes anchored to it (or to a
// directory above it) arrive, once per session; a must-check arrives as
// a check even after the session start showed it; an unanchored file and
// a second touch bring nothing.
func TestBeforeTool(t *testing.T) {
	dir, e, es := anchoredRepo(t)
	start, _ := claudeCall(t, e, "SessionStart", map[string]any{"session_id": "s1", "cwd": dir, "source": "startup"})
	if !strings.Contains(start.HookSpecificOutput.AdditionalContext, es["migration"].Content) {
		t.Fatalf("the session start does not show the must-check:\n%s", start.HookSpecificOutput.AdditionalContext)
	}

	o, _ := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Read", map[string]any{"file_path": filepath.Join(dir, "payments/client.go")}))
	ctx := o.HookSpecificOutput.AdditionalContext
	if o.HookSpecificOutput.HookEventName != "PreToolUse" || !strings.Contains(ctx, es["retry"].Content) || !strings.Contains(ctx, "<untrusted-knowledge") {
		t.Fatalf("reading an anchored file brought %+v", o)
	}
	if strings.Contains(ctx, es["plain"].Content) || strings.Contains(ctx, es["migration"].Content) {
		t.Errorf("notes on other files came too:\n%s", ctx)
	}
	if o.SystemMessage != "cairn: 1 note on payments/client.go" {
		t.Errorf("status = %q", o.SystemMessage)
	}
	if o.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("a note decided: %+v", o)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Edit", map[string]any{"file_path": "payments/client.go"})); out != "" {
		t.Errorf("a second touch repeated the note: %s", out)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Read", map[string]any{"file_path": "README.md"})); out != "" {
		t.Errorf("an unanchored file brought %s", out)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Read", map[string]any{"file_path": "/etc/passwd"})); out != "" {
		t.Errorf("a file outside the project brought %s", out)
	}

	o, _ = claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Edit", map[string]any{"file_path": "db/migrations/0001.sql"}))
	ctx = o.HookSpecificOutput.AdditionalContext
	if !strings.Contains(ctx, es["migration"].Content) || !strings.Contains(ctx, "Must check (a teammate's check on db/migrations/0001.sql) — this tool call has already run") {
		t.Fatalf("the must-check did not come as a check: %+v", o)
	}
	if o.HookSpecificOutput.PermissionDecision != "" {
		t.Errorf("guards are off by default, yet: %+v", o)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Write", map[string]any{"file_path": "db/migrations/0002.sql"})); out != "" {
		t.Errorf("the must-check came twice: %s", out)
	}

	o, _ = claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Bash", map[string]any{"command": "cd infra && terraform apply -auto-approve"}))
	if !strings.Contains(o.HookSpecificOutput.AdditionalContext, "terraform apply") {
		t.Errorf("a must-check on the command did not come: %+v", o)
	}
	o, _ = claudeCall(t, e, "PreToolUse", tool(dir, "s2", "Bash", map[string]any{"command": "cat payments/client.go"}))
	if !strings.Contains(o.HookSpecificOutput.AdditionalContext, es["retry"].Content) {
		t.Errorf("a command naming an anchored file brought %+v", o)
	}

	log, err := os.ReadFile(filepath.Join(dir, ".cairn", "local", "injections.jsonl"))
	if err != nil || !bytes.Contains(log, []byte(`"moment":"before a tool"`)) || !bytes.Contains(log, []byte(`"reason":"anchored to the file"`)) {
		t.Errorf("cairn log has no injection before a tool (%v):\n%s", err, log)
	}
}

// A typed line captured in a turn that edited files is anchored to them;
// the next prompt starts a turn with none.
func TestCaptureAnchorsTurnFiles(t *testing.T) {
	dir, e, _ := anchoredRepo(t)
	claudeCall(t, e, "PreToolUse", tool(dir, "c1", "Edit", map[string]any{"file_path": filepath.Join(dir, "README.md")}))
	claudeCall(t, e, "PreToolUse", tool(dir, "c1", "Read", map[string]any{"file_path": "payments/client.go"}))
	claudeCall(t, e, "PreToolUse", tool(dir, "c1", "Write", map[string]any{"file_path": "/etc/hosts"}))
	claudeCall(t, e, "Stop", map[string]any{"session_id": "c1", "cwd": dir, "last_assistant_message": "Done.\nLEARNED: the readme lists the supported regions"})
	claudeCall(t, e, "UserPromptSubmit", map[string]any{"session_id": "c1", "cwd": dir, "prompt": "next"})
	claudeCall(t, e, "Stop", map[string]any{"session_id": "c1", "cwd": dir, "last_assistant_message": "LEARNED: nothing was edited in this turn at all"})
	var first, second *knowledge.Entry
	for _, en := range entries(t, dir) {
		switch {
		case strings.Contains(en.Content, "readme lists"):
			first = &en
		case strings.Contains(en.Content, "nothing was edited"):
			second = &en
		}
	}
	if first == nil || !slices.Equal(first.Files, []string{"README.md"}) {
		t.Errorf("the turn's capture is anchored to %+v, want README.md only", first)
	}
	if second == nil || len(second.Files) != 0 {
		t.Errorf("the next turn's capture is anchored to %+v", second)
	}
}

// A prompt that names an anchored file brings its notes, before any tool
// touches it (a note delivered at the edit would come after the edit
// ran); the read that follows does not repeat them.
func TestPromptNamingFileBringsItsNotes(t *testing.T) {
	dir, e, es := anchoredRepo(t)
	p, _ := claudeCall(t, e, "UserPromptSubmit", map[string]any{"session_id": "n1", "cwd": dir, "prompt": "tidy up `payments/client.go`, please."})
	if ctx := p.HookSpecificOutput.AdditionalContext; strings.Count(ctx, es["retry"].Content) != 1 || strings.Contains(ctx, es["plain"].Content) {
		t.Fatalf("the prompt naming the file brought:\n%s", ctx)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "n1", "Read", map[string]any{"file_path": filepath.Join(dir, "payments/client.go")})); strings.Contains(out, es["retry"].Content) {
		t.Errorf("the read repeated the note: %s", out)
	}
	if p, _ := claudeCall(t, e, "UserPromptSubmit", map[string]any{"session_id": "n2", "cwd": dir, "prompt": "tidy up README.md"}); p.HookSpecificOutput.AdditionalContext != "" {
		t.Errorf("a prompt naming an unanchored file brought: %s", p.HookSpecificOutput.AdditionalContext)
	}
}

func TestPromptPaths(t *testing.T) {
	root := "/p"
	for _, c := range []struct {
		prompt string
		want   []string
	}{
		{"why does client/retry.go back off linearly?", []string{"client/retry.go"}},
		{"look at `db/migrations/` and README.md.", []string{"db/migrations", "README.md"}},
		{"see https://example.com/a.go and ../outside.go and /etc/passwd", nil},
		{"no paths here at all", nil},
	} {
		if got := session.PromptPaths(root, root, c.prompt); !slices.Equal(got, c.want) {
			t.Errorf("PromptPaths(%q) = %q, want %q", c.prompt, got, c.want)
		}
	}
}

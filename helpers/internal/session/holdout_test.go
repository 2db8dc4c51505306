package session_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

// sessionIDs returns a session id the share holds out and one it does
// not.
func sessionIDs(t *testing.T, share float64) (out, in string) {
	t.Helper()
	for i := 0; out == "" || in == ""; i++ {
		id := fmt.Sprintf("sess-%d", i)
		if holdout.Out(id, share) {
			out = cmp(out, id)
		} else {
			in = cmp(in, id)
		}
	}
	return out, in
}

func cmp(cur, id string) string {
	if cur != "" {
		return cur
	}
	return id
}

// A holdout session is shown nothing on any path a hook recalls by
// (session start, prompt, before a tool) nor through the MCP server's
// search, while a session the share keeps gets each; the start says so in
// the status line and in cairn log, and capture still notes the edits.
func TestHoldoutWalksEveryRecallPath(t *testing.T) {
	dir, e, es := anchoredRepo(t)
	writeConfig(t, dir, `{"holdout": 0.5}`)
	out, in := sessionIDs(t, 0.5)
	rounding := knowledge.Entry{Type: "learned", Content: "invoice rounding errors come from float math in the tax module", TS: 1700000000}
	rounding.Key = knowledge.MakeKey(rounding.Type, rounding.Content)
	if _, err := knowledge.Open(dir).Insert([]knowledge.Entry{rounding}); err != nil {
		t.Fatal(err)
	}
	prompt := "why are the invoice rounding errors in the tax module"
	file := filepath.Join(dir, "payments/client.go")

	for _, c := range []struct {
		id   string
		held bool
	}{{out, true}, {in, false}} {
		start, _ := claudeCall(t, e, "SessionStart", map[string]any{"session_id": c.id, "cwd": dir, "source": "startup"})
		p, _ := claudeCall(t, e, "UserPromptSubmit", map[string]any{"session_id": c.id, "cwd": dir, "prompt": prompt})
		tl, _ := claudeCall(t, e, "PreToolUse", tool(dir, c.id, "Edit", map[string]any{"file_path": file}))
		got := map[string]string{
			"session start": start.HookSpecificOutput.AdditionalContext,
			"prompt":        p.HookSpecificOutput.AdditionalContext,
			"before a tool": tl.HookSpecificOutput.AdditionalContext,
		}
		mcpHeld := session.HeldOut(project.New(dir, true), e.Getenv, c.id)
		if c.held {
			for moment, ctx := range got {
				if ctx != "" {
					t.Errorf("holdout session: the %s injected %q", moment, ctx)
				}
			}
			if start.SystemMessage != holdout.Status {
				t.Errorf("holdout session: status = %q, want %q", start.SystemMessage, holdout.Status)
			}
			if !mcpHeld {
				t.Error("holdout session: MCP would recall")
			}
			continue
		}
		if mcpHeld {
			t.Error("a kept session is held out of MCP")
		}
		if !strings.Contains(got["session start"], es["migration"].Content) || !strings.Contains(got["before a tool"], es["retry"].Content) ||
			!strings.Contains(got["session start"]+got["prompt"], rounding.Content) {
			t.Errorf("a kept session got no recall: %q", got)
		}
	}

	list, err := recall.Injections(knowledge.Open(dir))
	if err != nil {
		t.Fatal(err)
	}
	var heldRecs, others int
	for _, r := range list {
		switch {
		case r.Session == out && r.Holdout && len(r.Entries) == 0 && r.Share == 0.5:
			heldRecs++
		case r.Session == out:
			t.Errorf("cairn log has an injection for the holdout session: %+v", r)
		default:
			others++
		}
	}
	if heldRecs != 1 || others == 0 {
		t.Errorf("cairn log: %d holdout records, %d others; want 1 and some", heldRecs, others)
	}
	// Capture still runs in a holdout session.
	call(t, e, "reply", map[string]string{"text": "Done.\nLEARNED: holdout sessions still record what they learn", "cwd": dir, "session": out})
	found := false
	for _, en := range entries(t, dir) {
		found = found || en.Session == out && strings.Contains(en.Content, "holdout sessions still record")
	}
	if !found {
		t.Error("a holdout session's typed line was not captured")
	}
}

// The person's own "holdout": 0 turns the team's holdout off for them.
func TestHoldoutPersonTurnsOff(t *testing.T) {
	dir, e, es := anchoredRepo(t)
	writeConfig(t, dir, `{"holdout": 0.5}`)
	out, _ := sessionIDs(t, 0.5)
	home := t.TempDir()
	conf := filepath.Join(home, ".config", "cairn")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "config.json"), []byte(`{"holdout": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	get := e.Getenv
	e.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return get(k)
	}
	start, _ := claudeCall(t, e, "SessionStart", map[string]any{"session_id": out, "cwd": dir, "source": "startup"})
	if !strings.Contains(start.HookSpecificOutput.AdditionalContext, es["migration"].Content) {
		t.Errorf("the person's holdout 0 did not turn it off: %+v", start)
	}
}

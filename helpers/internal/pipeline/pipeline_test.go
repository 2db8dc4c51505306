package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
)

func conversation(n int) event.Conversation {
	c := event.Conversation{Session: "26e7e04b-f769-409a-a007-3b9794e3bc9d", Cwd: "/home/dev/src/shop", Branch: "feat/x",
		Agent: "Claude Code", Version: "2.1.197", Interactive: true}
	at := time.Date(2026, 11, 24, 1, 4, 10, 0, time.UTC)
	for i := 0; i < n; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		c.Messages = append(c.Messages, event.Message{Role: role, Text: "message " + string(rune('a'+i)), Time: at.Add(time.Duration(i) * time.Minute)})
	}
	return c
}

func TestWorth(t *testing.T) {
	for _, tc := range []struct {
		name     string
		c        event.Conversation
		headless bool
		want     bool
	}{
		{"interactive, 4 messages", conversation(4), false, true},
		{"interactive, 3 messages", conversation(3), false, false},
		{"headless", func() event.Conversation { c := conversation(6); c.Interactive = false; return c }(), false, false},
		{"headless, config says so", func() event.Conversation { c := conversation(6); c.Interactive = false; return c }(), true, true},
		{"a subagent's", func() event.Conversation { c := conversation(6); c.Sidechain = true; return c }(), true, false},
	} {
		if got := pipeline.Worth(tc.c, tc.headless); got != tc.want {
			t.Errorf("%s: Worth = %v", tc.name, got)
		}
	}
}

// A session becomes sessions/YYYY-MM/YYYY-MM-DD-<session id>.md with its
// front matter and one block per message, secrets redacted; exporting it
// again writes nothing until it has more messages.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	c := conversation(4)
	c.Messages[1].Text = "use the key ghp_y1CJdObOIRpFqaDZeV7G5IfQHeVVEqZe2qpU for the bucket\nsecond line"
	path, wrote, err := pipeline.Export(dir, c)
	if err != nil || !wrote {
		t.Fatalf("Export = %s, %v, %v", path, wrote, err)
	}
	if want := filepath.Join(dir, "sessions", "2026-11", "2026-11-24-26e7e04b-f769-409a-a007-3b9794e3bc9d.md"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	data, _ := os.ReadFile(path)
	md := string(data)
	for _, want := range []string{"---\ntype: \"session\"\n", `session_id: "26e7e04b-f769-409a-a007-3b9794e3bc9d"`, `date: "2026-11-24T01:04:10Z"`,
		`cwd: "/home/dev/src/shop"`, `project: "shop"`, `branch: "feat/x"`, `agent_version: "2.1.197"`, "messages: 4\n---\n",
		"\n## User\n\nmessage a\n", "\n## Assistant\n\n", "second line"} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "ghp_y1CJdObOIRpFqaDZeV7G5IfQHeVVEqZe2qpU") {
		t.Errorf("a secret was exported:\n%s", md)
	}
	if _, wrote, _ := pipeline.Export(dir, c); wrote {
		t.Errorf("the same session was written twice")
	}
	if _, wrote, _ := pipeline.Export(dir, conversation(6)); !wrote {
		t.Errorf("a session that grew was not rewritten")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

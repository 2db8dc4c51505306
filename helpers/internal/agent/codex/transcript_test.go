package codex_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Rollouts written by Codex 0.169.0: an interactive session and an exec
// run in a project wired for cairn (its instructions, environment and
// hook context are in the rollout, and must not be read as the person's
// messages).
func TestReadTranscriptRecorded(t *testing.T) {
	cases := []struct {
		file        string
		session     string
		interactive bool
		user        string
		branch      string
	}{
		{"interactive.jsonl", "01a20d03-55ce-73e3-befe-f8a6ae420cc0", true, "say hi", "master"},
		{"exec.jsonl", "01a20d08-bab3-7222-b2cb-b6f5af27ede7", false, "fix the oauth redirect bug", "main"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			conv, err := codex.Adapter{}.ReadTranscript(bytes.NewReader(readTestdata(t, "rollouts/"+c.file)))
			if err != nil {
				t.Fatal(err)
			}
			if conv.Session != c.session || conv.Interactive != c.interactive || conv.Agent != "Codex" || conv.Version != "0.169.0" ||
				conv.Branch != c.branch || conv.Skipped != 0 || conv.Sidechain {
				t.Errorf("conversation: %+v", conv)
			}
			if len(conv.Messages) != 2 {
				t.Fatalf("messages: %+v", conv.Messages)
			}
			u, a := conv.Messages[0], conv.Messages[1]
			if u.Role != "user" || u.Text != c.user || a.Role != "assistant" || !strings.Contains(a.Text, "LEARNED: codex replies are captured") {
				t.Errorf("messages: %+v", conv.Messages)
			}
			if u.Time.IsZero() || a.Time.Before(u.Time) {
				t.Errorf("times: %v %v", u.Time, a.Time)
			}
			if conv.UserChars() != len(c.user) {
				t.Errorf("UserChars = %d", conv.UserChars())
			}
		})
	}
}

// Older Codex versions logged user_message and agent_message events; a
// subagent's session is a sidechain; a torn or foreign line is skipped;
// reading may start mid-file.
func TestReadTranscriptShapes(t *testing.T) {
	in := `{"timestamp":"2025-09-01T10:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/p","cli_version":"0.40.0","source":{"subagent":"review"}}}
{"timestamp":"2025-09-01T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"hello"}}
not json
{"timestamp":"2025-09-01T10:00:02Z","type":"event_msg","payload":{"type":"agent_message","message":"DECISION: keep it"}}
{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}}
{"timestamp":"2025-09-01T10:00:03Z","type":"event_msg","payload":{"type":"agent_mess`
	conv, err := codex.Adapter{}.ReadTranscript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []event.Message{
		{Role: "user", Text: "hello", Time: time.Date(2025, 9, 1, 10, 0, 1, 0, time.UTC)},
		{Role: "assistant", Text: "DECISION: keep it", Time: time.Date(2025, 9, 1, 10, 0, 2, 0, time.UTC)},
	}
	if len(conv.Messages) != 2 || conv.Messages[0] != want[0] || conv.Messages[1] != want[1] || conv.Skipped != 2 || !conv.Sidechain || conv.Interactive {
		t.Errorf("%+v", conv)
	}
	rec := readTestdata(t, "rollouts/exec.jsonl")
	mid := rec[bytes.Index(rec, []byte(`"item_completed"`))-200:]
	mid = mid[bytes.IndexByte(mid, '\n')+1:]
	conv, err = codex.Adapter{}.ReadTranscript(bytes.NewReader(mid))
	if err != nil || conv.Session != "" || len(conv.Messages) == 0 {
		t.Errorf("mid-file: %+v %v", conv, err)
	}
	long := `{"type":"event_msg","payload":{"type":"user_message","message":"` + strings.Repeat("x", 17<<20) + `"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"user_message","message":"after"}}`
	conv, err = codex.Adapter{}.ReadTranscript(strings.NewReader(long))
	if err != nil || conv.Skipped != 1 || len(conv.Messages) != 1 || conv.Messages[0].Text != "after" {
		t.Errorf("over-long line: %d messages, skipped %d, %v", len(conv.Messages), conv.Skipped, err)
	}
}

func FuzzReadTranscript(f *testing.F) {
	f.Add(readTestdata(f, "rollouts/exec.jsonl"))
	f.Add([]byte(`{"type":"session_meta","payload":{"source":7}}` + "\n" + `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","content":[{"type":"text","text":"x"}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		conv, err := codex.Adapter{}.ReadTranscript(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range conv.Messages {
			if m.Text == "" || (m.Role != "user" && m.Role != "assistant") {
				t.Fatalf("message %+v", m)
			}
		}
	})
}

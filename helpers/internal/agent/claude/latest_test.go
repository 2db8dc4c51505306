package claude_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// What Claude Code 2.1.330 changed, read from its real output (the probe
// of the end-to-end tests; paths replaced): the Agent tool runs a subagent
// in the background, and when it ends the client writes a
// <task-notification> user record into the main transcript and submits
// it as a prompt. Neither is the person's.

// A 2.1.330 transcript (new record types: api-request, api-request-blob,
// atis-latch, tools-used, system, attachment) reads as its conversation,
// without the task notification.
func TestReadTranscript2_1_330(t *testing.T) {
	tr, err := claude.Adapter{}.ReadTranscript(bytes.NewReader(readFixture(t, "async-subagent-2.1.330.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range tr.Messages {
		roles = append(roles, m.Role)
		if strings.Contains(m.Text, "task-notification") || strings.Contains(m.Text, "Async agent launched") {
			t.Errorf("a client record became a message: %.80q", m.Text)
		}
	}
	if got := strings.Join(roles, " "); got != "user assistant" || tr.Messages[0].Text != "probe" ||
		!strings.Contains(tr.Messages[1].Text, "DECISION: probe") {
		t.Errorf("messages = %+v", tr.Messages)
	}
	if tr.Version != "2.1.330" || tr.Sidechain || tr.Interactive || tr.Branch != "feat/oauth-redirect" || tr.Cwd != "/home/dev/src/shop" || tr.Skipped != 0 {
		t.Errorf("got %+v", tr)
	}
}

// 2.1.330's UserPromptSubmit for a background task's end decodes to a
// prompt with nothing to recall for; a person's prompt is kept.
func TestDecodeTaskNotificationPrompt(t *testing.T) {
	getenv := func(string) string { return "" }
	const notification = `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/home/dev/src/shop","prompt_id":"p","permission_mode":"default",` +
		`"hook_event_name":"UserPromptSubmit","prompt":"<task-notification>\n<task-id>a296d16f9dd7918fc</task-id>\n<status>completed</status>\n` +
		`<summary>Agent \"sub\" finished</summary>\n<result>Done.\nDECISION: probe</result>\n</task-notification>"}`
	e, err := claude.Adapter{}.Decode("UserPromptSubmit", []byte(notification), getenv)
	if err != nil || e.Kind != event.Prompt || e.Prompt != "" || e.Session != "s" {
		t.Errorf("task notification: %+v, %v", e, err)
	}
	e, err = claude.Adapter{}.Decode("UserPromptSubmit", []byte(userPromptSubmitPayload), getenv)
	if err != nil || e.Prompt != "fix the oauth redirect bug and record what you learn" {
		t.Errorf("a person's prompt: %+v, %v", e, err)
	}
}

package codex_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// agentRun is a rollout of one prompt and then records of the agent's
// text.
func agentRun(records int) []byte {
	var b clitest.JSONLines
	line := func(typ string, payload any) {
		b.Add(map[string]any{"timestamp": "2026-11-24T10:00:00Z", "type": typ, "payload": payload})
	}
	line("session_meta", map[string]any{"id": "s-run", "cwd": "/work", "source": "cli"})
	line("event_msg", map[string]any{"type": "user_message", "message": "walk through the whole retry module"})
	text := strings.Repeat("the retry budget is three attempts and then the job is parked; ", 20)
	for i := range records {
		line("event_msg", map[string]any{"type": "agent_message", "message": fmt.Sprintf("%d: %s", i, text)})
	}
	return b.Bytes()
}

// TestReadTranscriptCut: the reader stops at its cap of bytes read and
// says so.
func TestReadTranscriptCut(t *testing.T) {
	data := agentRun(100)
	c, err := codex.ReadTranscriptMax(bytes.NewReader(data), int64(len(data)/2))
	if err != nil || !c.Cut || len(c.Messages) < 2 || len(c.Messages) > 60 {
		t.Fatalf("half the cap: cut %v, err %v, %d messages", c.Cut, err, len(c.Messages))
	}
	if c, err := codex.ReadTranscriptMax(bytes.NewReader(data), int64(len(data))); err != nil || c.Cut || len(c.Messages) != 101 {
		t.Fatalf("exactly the cap: cut %v, err %v, %d messages", c.Cut, err, len(c.Messages))
	}
}

// BenchmarkReadTranscriptRun reads a 24 MB run of the agent's text.
func BenchmarkReadTranscriptRun(b *testing.B) {
	data := agentRun(18000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (codex.Adapter{}).ReadTranscript(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

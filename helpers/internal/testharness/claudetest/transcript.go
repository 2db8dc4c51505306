package claudetest

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// AssistantRun is a transcript of one prompt and then records records of
// assistant text, each followed by a tool result (which does not end the
// assistant's run): issue 24's attack, 16k records making 24 MB.
func AssistantRun(records int) []byte {
	var b clitest.JSONLines
	b.Add(map[string]any{"type": "user", "sessionId": "s-run", "timestamp": "2026-11-24T10:00:00Z",
		"message": map[string]any{"role": "user", "content": "walk through the whole retry module"}})
	text := strings.Repeat("the retry budget is three attempts and then the job is parked; ", 20)
	for i := range records {
		b.Add(map[string]any{"type": "assistant", "sessionId": "s-run", "timestamp": "2026-11-24T10:00:01Z",
			"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("%d: %s", i, text)}}}})
		b.Add(map[string]any{"type": "user", "sessionId": "s-run", "timestamp": "2026-11-24T10:00:02Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "content": "ok"}}}})
	}
	return b.Bytes()
}

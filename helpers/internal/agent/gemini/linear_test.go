package gemini

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// assistantRun is a transcript of one prompt and then records of the
// agent's text, each under its own id: issue 24's attack on Gemini CLI's
// reader, which joined them the quadratic way.
func assistantRun(records int) []byte {
	var b clitest.JSONLines
	b.Add(map[string]any{"sessionId": "s-run", "kind": "main"})
	b.Add(map[string]any{"id": "u0", "type": "user", "timestamp": "2026-11-24T10:00:00Z", "content": "walk through the whole retry module"})
	text := strings.Repeat("the retry budget is three attempts and then the job is parked; ", 20)
	for i := range records {
		b.Add(map[string]any{"id": fmt.Sprintf("g%d", i), "type": "gemini", "timestamp": "2026-11-24T10:00:01Z", "content": fmt.Sprintf("%d: %s", i, text)})
	}
	return b.Bytes()
}

// TestReadTranscriptLinear: reading a run of the agent's text allocates in
// proportion to the transcript, not to its square.
func TestReadTranscriptLinear(t *testing.T) {
	data := assistantRun(2000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := Adapter{}.ReadTranscript(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || !strings.Contains(c.Messages[1].Text, "\n\n1999: ") {
		t.Fatalf("want the prompt and one joined reply, got %d messages", len(c.Messages))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 20*uint64(len(data)) {
		t.Errorf("reading %d bytes allocated %d bytes: more than 20 times the transcript", len(data), alloc)
	}
}

// TestReadTranscriptCut: the reader stops at its cap of bytes read and
// says so.
func TestReadTranscriptCut(t *testing.T) {
	data := assistantRun(100)
	c, err := readTranscript(bytes.NewReader(data), int64(len(data)/2))
	if err != nil || !c.Cut || len(c.Messages) != 2 || strings.Contains(c.Messages[1].Text, "99: ") {
		t.Fatalf("half the cap: cut %v, err %v, %d messages", c.Cut, err, len(c.Messages))
	}
	if c, err := readTranscript(bytes.NewReader(data), int64(len(data))); err != nil || c.Cut {
		t.Fatalf("exactly the cap: cut %v, err %v", c.Cut, err)
	}
}

// BenchmarkReadTranscriptRun reads a 24 MB run of the agent's text.
func BenchmarkReadTranscriptRun(b *testing.B) {
	data := assistantRun(18000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (Adapter{}).ReadTranscript(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

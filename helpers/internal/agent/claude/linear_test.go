package claude_test

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
)

// TestReadTranscriptLinear: reading a run of assistant text allocates in
// proportion to the transcript, not to its square (issue 24: the joined
// text was rebuilt on every record, 557 MB for 24 MB).
func TestReadTranscriptLinear(t *testing.T) {
	data := claudetest.AssistantRun(2000) // 3 MB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c, err := claude.Adapter{}.ReadTranscript(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != 2 || !strings.HasPrefix(c.Messages[1].Text, "0: ") || !strings.Contains(c.Messages[1].Text, "\n\n1999: ") {
		t.Fatalf("want the prompt and one joined reply, got %d messages", len(c.Messages))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 20*uint64(len(data)) {
		t.Errorf("reading %d bytes allocated %d bytes: more than 20 times the transcript", len(data), alloc)
	}
}

// TestReadTranscriptCut: a reader stops at its cap of bytes read and says
// so; under the cap it says nothing.
func TestReadTranscriptCut(t *testing.T) {
	data := claudetest.AssistantRun(100)
	c, err := claude.ReadTranscriptMax(bytes.NewReader(data), int64(len(data)/2))
	if err != nil || !c.Cut {
		t.Fatalf("half the cap: cut %v, err %v", c.Cut, err)
	}
	if len(c.Messages) != 2 || strings.Contains(c.Messages[1].Text, "99: ") {
		t.Fatalf("the cut transcript kept what follows the cap")
	}
	c, err = claude.ReadTranscriptMax(bytes.NewReader(data), int64(len(data)))
	if err != nil || c.Cut {
		t.Fatalf("a transcript of exactly the cap: cut %v, err %v", c.Cut, err)
	}
}

// BenchmarkReadTranscriptRun reads issue 24's 24 MB run of assistant text.
func BenchmarkReadTranscriptRun(b *testing.B) {
	data := claudetest.AssistantRun(16000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (claude.Adapter{}).ReadTranscript(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// Measuring a transcript allocates in proportion to it (the reader is
// reused and each line read in place), and a record over the line cap is
// skipped without ending the reading: what follows it is still counted.
func TestMeasureLinearAndBounded(t *testing.T) {
	data := claudetest.AssistantRun(2000)                // 3 MB
	claude.Adapter{}.Measure(bytes.NewReader(data), nil) // the pool's reader, made once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := claude.Adapter{}.Measure(bytes.NewReader(data), nil)
	runtime.ReadMemStats(&after)
	if err != nil || m.Turns != 1 || m.Session != "s-run" {
		t.Fatalf("measured %+v, %v", m, err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("measuring %d bytes allocated %d bytes", len(data), alloc)
	if alloc > 4*uint64(len(data)) {
		t.Errorf("measuring %d bytes allocated %d bytes: more than 4 times the transcript", len(data), alloc)
	}

	huge := append([]byte(`{"type":"user","sessionId":"s-huge","message":{"role":"user","content":"`), bytes.Repeat([]byte("x"), 17<<20)...)
	huge = append(huge, "\"}}\n"...)
	after1 := `{"type":"user","sessionId":"s-huge","timestamp":"2026-11-24T10:00:00Z","message":{"role":"user","content":"after the huge record"}}` + "\n"
	m, err = claude.Adapter{}.Measure(io.MultiReader(bytes.NewReader(huge), strings.NewReader(after1)), nil)
	if err != nil || m.Turns != 1 || m.Session != "s-huge" {
		t.Errorf("after a record over the cap: %+v, %v", m, err)
	}
}

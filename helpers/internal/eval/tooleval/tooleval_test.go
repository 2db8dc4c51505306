package tooleval

import (
	"os"
	"path/filepath"
	"testing"
)

// The notes injected before the scripted tool calls of testdata/pretool
// (a small shop: notes on files and directories, must-checks on a
// directory and a command, a retracted note, unanchored entries; three
// sessions touching anchored files, files under anchored directories,
// unanchored files, files outside the project, and commands) are exactly
// the expected ones. Figures reached: precision 1.0, recall 1.0, no call
// that expects nothing brings a note. The suite fails below them.
func TestToolNotesOnTestdata(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "testdata", "pretool")
	corpus, err := os.ReadFile(filepath.Join(dir, "knowledge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	calls, err := ReadToolCalls(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := EvaluateTools(corpus, calls)
	if err != nil {
		t.Fatal(err)
	}
	if m.Calls != len(calls) || m.Precision < 1.0 || m.Recall < 1.0 || m.NegativesWithNotes > 0 {
		t.Errorf("%s", m)
	}
	if m.Negatives < 10 || m.Expected < 10 {
		t.Errorf("the set is too small to mean much: %+v", m)
	}
}

func TestReadToolCallsErrors(t *testing.T) {
	for _, bad := range []string{`{"tool":"Read"}`, `{"session":"s"}`, `not json`} {
		if _, err := ReadToolCalls([]byte(bad)); err == nil {
			t.Errorf("ReadToolCalls(%s) = nil error", bad)
		}
	}
}

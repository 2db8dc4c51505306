package claude_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "transcripts", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The real transcripts of Claude Code 2.1.197 read as their conversations:
// the person's prompts and the assistant's text, nothing of tool calls,
// tool results or bookkeeping; branch and version from the records that
// carry them; interactive only for a session typed into the UI.
func TestReadTranscriptFixtures(t *testing.T) {
	for _, tc := range []struct {
		file        string
		interactive bool
		sidechain   bool
		branch      string
		roles       string
		contains    []string
		absent      []string
	}{
		{"interactive-two-turns.jsonl", true, false, "master", "user assistant user assistant",
			[]string{"where is the retry loop?", "Hello from the fake model.", "and the backoff?", "Second answer."}, nil},
		{"multi-turn.jsonl", false, false, "feat/oauth-redirect", "user assistant user assistant user assistant",
			[]string{"the CI job times out in the retry test, why?", "LEARNED: exponential backoff must cap at", "Handoff: still need to add jitter"},
			[]string{"Bash completed with no output", "tool_use"}},
		{"tool-use-and-typed-lines.jsonl", false, false, "feat/oauth-redirect", "user assistant",
			[]string{"Let me look at the code.", "DECISION: Keep redi"}, []string{"package main", "Exit code 127"}},
		{"subagent-parent.jsonl", false, false, "feat/oauth-redirect", "user assistant",
			[]string{"investigate the flaky test with a subagent", "The subagent found the cause."}, []string{"Root cause found"}},
		{"subagent-child.jsonl", false, true, "feat/oauth-redirect", "user assistant",
			[]string{"Find why TestRedirect is flaky", "INVESTIGATION: TestRedirect is flaky"}, nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			tr, err := claude.Adapter{}.ReadTranscript(bytes.NewReader(readFixture(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			var roles []string
			var all strings.Builder
			for _, m := range tr.Messages {
				roles = append(roles, m.Role)
				all.WriteString(m.Text + "\n")
				if m.Time.IsZero() {
					t.Errorf("message without a time: %q", m.Text)
				}
			}
			if got := strings.Join(roles, " "); got != tc.roles {
				t.Errorf("roles = %s, want %s", got, tc.roles)
			}
			for _, s := range tc.contains {
				if !strings.Contains(all.String(), s) {
					t.Errorf("messages lack %q:\n%s", s, all.String())
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(all.String(), s) {
					t.Errorf("messages hold %q, which is not conversation:\n%s", s, all.String())
				}
			}
			if tr.Interactive != tc.interactive || tr.Sidechain != tc.sidechain || tr.Branch != tc.branch ||
				tr.Version != "2.1.197" || tr.Cwd != "/home/dev/src/shop" || tr.Skipped != 0 {
				t.Errorf("got interactive %v sidechain %v branch %q version %q cwd %q skipped %d",
					tr.Interactive, tr.Sidechain, tr.Branch, tr.Version, tr.Cwd, tr.Skipped)
			}
			if tc.file == "interactive-two-turns.jsonl" && (tr.Session == "" || tr.UserChars() != len("where is the retry loop?")+len("and the backoff?")) {
				t.Errorf("session %q, user chars %d", tr.Session, tr.UserChars())
			}
		})
	}
}

// A torn last line and garbage are counted and skipped; a record longer
// than the cap is skipped without being held, and reading goes on.
func TestReadTranscriptDamaged(t *testing.T) {
	good := readFixture(t, "interactive-two-turns.jsonl")
	huge := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", agent.MaxTranscriptLine) + `"}}` + "\n"
	in := "not json\n" + huge + string(good) + `{"type":"user","message":{"role":"user","content":"torn`
	tr, err := claude.Adapter{}.ReadTranscript(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Skipped != 3 || len(tr.Messages) != 4 || !tr.Interactive {
		t.Errorf("skipped %d, messages %d", tr.Skipped, len(tr.Messages))
	}
	for _, m := range tr.Messages {
		if strings.Contains(m.Text, "xxxx") || strings.Contains(m.Text, "torn") {
			t.Errorf("a skipped line became a message: %.40q", m.Text)
		}
	}
}

func FuzzReadTranscript(f *testing.F) {
	// Seeds are the short records of each real transcript (the fuzzer's
	// instrumented run slows to a few inputs a second on records of
	// kilobytes), and a compact user and assistant turn in their shape.
	for _, name := range []string{"interactive-two-turns.jsonl", "multi-turn.jsonl", "subagent-child.jsonl"} {
		var seed []byte
		for _, line := range bytes.SplitAfter(readFixture(f, name), []byte("\n")) {
			if len(line) < 512 && len(seed) < 1024 {
				seed = append(seed, line...)
			}
		}
		f.Add(seed)
	}
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"tool_use"}]}}`))
	f.Add([]byte(`{"type":"mode","mode":"normal","sessionId":"s"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"where?"},"timestamp":"2026-11-24T01:04:10.555Z","entrypoint":"cli","cwd":"/w","sessionId":"s","version":"2.1.197","gitBranch":"main"}` + "\n" +
		`{"type":"assistant","isSidechain":false,"isMeta":false,"message":{"role":"assistant","content":[{"type":"text","text":"here"}]},"gitBranch":"fix"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := claude.Adapter{}.ReadTranscript(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("an in-memory reader failed: %v", err)
		}
		for i, m := range tr.Messages {
			if m.Role != "user" && m.Role != "assistant" || m.Text == "" {
				t.Fatalf("message %d: %+v", i, m)
			}
			if i > 0 && tr.Messages[i-1].Role == m.Role {
				t.Fatalf("two %s messages in a row", m.Role)
			}
		}
	})
}

func BenchmarkReadTranscript(b *testing.B) {
	data := bytes.Repeat(readFixture(b, "multi-turn.jsonl"), 200) // ~3 MB, 3,800 records
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := (claude.Adapter{}).ReadTranscript(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// The records Claude Code writes for its own commands (/exit and its
// output, as 2.1.197 wrote them under load in the interactive end-to-end
// test) are not the person's messages.
func TestReadTranscriptSkipsCommandWrappers(t *testing.T) {
	good := readFixture(t, "interactive-two-turns.jsonl")
	exit := `{"type":"user","message":{"role":"user","content":"<command-name>/exit</command-name>\n            <command-message>exit</command-message>\n            <command-args></command-args>"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"<local-command-stdout>See ya!</local-command-stdout>"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<bash-input>ls</bash-input>"}]}}` + "\n"
	tr, err := claude.Adapter{}.ReadTranscript(strings.NewReader(string(good) + exit))
	if err != nil || len(tr.Messages) != 4 {
		t.Fatalf("%d messages, %v", len(tr.Messages), err)
	}
	if last := tr.Messages[len(tr.Messages)-1]; last.Role != "assistant" {
		t.Errorf("a command wrapper became a message: %.60q", last.Text)
	}
}

// Measure counts a transcript's tokens once per model answer, its tool
// calls and failed results, its typed prompts, and sees the files its
// tools name.
func TestMeasure(t *testing.T) {
	data := readFixture(t, "tool-use-and-typed-lines.jsonl")
	var prompts, touches int
	m, err := claude.Adapter{}.Measure(bytes.NewReader(data), func(s agent.Seen) {
		switch s.Kind {
		case agent.SeenPrompt:
			prompts++
		case agent.SeenTouch, agent.SeenEdit:
			touches++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.ToolCalls != 3 || m.FailedTools != 2 || m.Turns != 1 || prompts != 1 || m.Session == "" || m.Start.IsZero() || !m.End.After(m.Start) {
		t.Errorf("measured %+v, %d prompts", m, prompts)
	}
	if m.Input == 0 || m.Output == 0 {
		t.Errorf("no tokens: %+v", m)
	}
	if touches != 0 {
		t.Errorf("%d touches in a transcript of Bash calls", touches)
	}
	compact := `{"type":"system","subtype":"compact_boundary","sessionId":"s","timestamp":"2026-11-22T01:59:47.727Z"}` + "\n"
	if m, _ := (claude.Adapter{}).Measure(strings.NewReader(compact), nil); m.Compactions != 1 {
		t.Errorf("compactions = %d", m.Compactions)
	}
}

func FuzzMeasure(f *testing.F) {
	f.Add(readFixture(f, "tool-use-and-typed-lines.jsonl"))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"a","old_string":"x","new_string":"y"}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := claude.Adapter{}.Measure(bytes.NewReader(data), func(agent.Seen) {})
		if m.FailedTools < 0 || m.ToolCalls < 0 || m.Turns < 0 {
			t.Fatalf("negative counts: %+v", m)
		}
	})
}

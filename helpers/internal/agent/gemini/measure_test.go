package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

var _ agent.Measurer = Adapter{}

// The transcript Gemini CLI 0.61.0 wrote of a headless session against a
// scripted model (recorded, paths rewritten): a shell command that exited
// 1, a read_file and a replace, each message written twice (before and
// after its tool call). Measure counts each message's tokens once, the
// three calls and the failed shell command, the one prompt, and sees the
// read and the edit.
func TestMeasureRecorded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "session-tools.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var seen []agent.Seen
	m, err := Adapter{}.Measure(bytes.NewReader(data), func(s agent.Seen) { seen = append(seen, s) })
	if err != nil {
		t.Fatal(err)
	}
	if m.Session != "c63fad8a-ea41-4afb-bcf2-3c364a056954" || m.Cwd != "/home/ana/src/shop" || m.Sidechain {
		t.Errorf("session %q, cwd %q, sidechain %v", m.Session, m.Cwd, m.Sidechain)
	}
	// Four answers of 10 input and 5 output tokens each.
	if m.ToolCalls != 3 || m.FailedTools != 1 || m.Turns != 1 || m.Input != 40 || m.Output != 20 || m.CacheRead != 0 || m.Compactions != 0 {
		t.Errorf("measured %+v", m)
	}
	if m.Start.IsZero() || m.End.Sub(m.Start).Seconds() < 4 {
		t.Errorf("span %v to %v", m.Start, m.End)
	}
	var kinds []string
	for _, s := range seen {
		kinds = append(kinds, s.Kind)
		switch s.Kind {
		case agent.SeenPrompt:
			if s.Text != "fix the payment retries" {
				t.Errorf("prompt %q", s.Text)
			}
		case agent.SeenTouch, agent.SeenEdit:
			if s.Path != "/home/ana/src/shop/a.txt" {
				t.Errorf("%s of %q", s.Kind, s.Path)
			}
		}
	}
	want := []string{agent.SeenSession, agent.SeenPrompt, agent.SeenReply, agent.SeenTouch, agent.SeenEdit, agent.SeenReply}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Errorf("seen %v, want %v", kinds, want)
	}
	for _, s := range seen {
		if s.Kind == agent.SeenEdit && (s.Old != "one" || s.New != "two") {
			t.Errorf("edit %q -> %q", s.Old, s.New)
		}
	}
}

// Figures follow the transcript's updates: a message written again counts
// once with its latest tokens and calls, a rewind drops the messages from
// its id on, a tool call marked an error fails, cached tokens are not
// input, thoughts are output, and a subagent's transcript says so.
func TestMeasureUpdatesAndRewinds(t *testing.T) {
	data := lines(
		`{"sessionId":"s1","projectHash":"h","startTime":"2026-11-24T10:00:00.000Z","lastUpdated":"2026-11-24T10:00:00.000Z","kind":"subagent"}`,
		`{"id":"u1","timestamp":"2026-11-24T10:00:01.000Z","type":"user","content":[{"text":"first prompt"}]}`,
		`{"id":"g1","timestamp":"2026-11-24T10:00:02.000Z","type":"gemini","content":"","tokens":{"input":100,"output":10,"cached":60,"thoughts":5,"tool":0,"total":175}}`,
		`{"id":"g1","timestamp":"2026-11-24T10:00:02.000Z","type":"gemini","content":"","tokens":{"input":100,"output":10,"cached":60,"thoughts":5,"tool":0,"total":175},"toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"/p/missing.go"},"status":"error","timestamp":"2026-11-24T10:00:03.000Z"}]}`,
		`{"id":"u2","timestamp":"2026-11-24T10:00:04.000Z","type":"user","content":[{"text":"second prompt"}]}`,
		`{"id":"g2","timestamp":"2026-11-24T10:00:05.000Z","type":"gemini","content":"ok","tokens":{"input":300,"output":30,"cached":0,"thoughts":0,"tool":0,"total":330},"toolCalls":[{"id":"c2","name":"glob","args":{"pattern":"*"},"status":"success"}]}`,
		`{"$rewindTo":"u2"}`,
		`{"$set":{"lastUpdated":"2026-11-24T10:09:00.000Z"}}`,
	)
	m, err := Adapter{}.Measure(bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Turns != 1 || m.ToolCalls != 1 || m.FailedTools != 1 || m.Input != 40 || m.CacheRead != 60 || m.Output != 15 || !m.Sidechain {
		t.Errorf("measured %+v", m)
	}
	if got := m.End.Sub(m.Start).Minutes(); got != 9 {
		t.Errorf("wall time %v minutes, want 9", got)
	}
}

func TestExitCode(t *testing.T) {
	for out, want := range map[string]int{
		"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 3855\n</untrusted_context>": 1,
		"Output: fine\nExit Code: 0\n":     0,
		"Output: Exit Code: 3 in the text": -1,
		"":                                 -1,
	} {
		code, ok := exitCode(out)
		if !ok {
			code = -1
		}
		if code != want {
			t.Errorf("exitCode(%q) = %d, want %d", out, code, want)
		}
	}
}

// Transcripts finds the chats of the project directories whose
// .project_root is inside the project, and of the directory named after
// the SHA-256 of its path; not another project's.
func TestTranscripts(t *testing.T) {
	home, root := t.TempDir(), t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(home, ".gemini", "tmp", filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("shop/.project_root", root+"\n")
	write("shop/chats/session-a.jsonl", "{}\n")
	write("shop/chats/notes.txt", "x")
	write("shop-sub/.project_root", filepath.Join(root, "svc"))
	write("shop-sub/chats/session-b.jsonl", "{}\n")
	write("other/.project_root", root+"-other")
	write("other/chats/session-c.jsonl", "{}\n")
	sum := sha256Hex(root)
	write(sum+"/chats/session-d.jsonl", "{}\n")
	got, err := Adapter{}.Transcripts(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, filepath.Base(p))
	}
	if len(names) != 3 {
		t.Errorf("Transcripts = %v", names)
	}
	for _, n := range names {
		if n == "session-c.jsonl" || n == "notes.txt" {
			t.Errorf("Transcripts includes %s", n)
		}
	}
	// GEMINI_CLI_HOME wins over HOME.
	got, _ = Adapter{}.Transcripts(func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return home
		}
		return "/nonexistent"
	}, root)
	if len(got) != 3 {
		t.Errorf("with GEMINI_CLI_HOME: %v", got)
	}
}

// Measuring a long transcript allocates in proportion to it, and a record
// over the cap is skipped without ending the reading.
func TestMeasureLinear(t *testing.T) {
	var b clitest.JSONLines
	b.Add(map[string]any{"sessionId": "s-long", "kind": "main"})
	b.Add(map[string]any{"id": "u0", "type": "user", "timestamp": "2026-11-24T10:00:00Z", "content": []any{map[string]any{"text": "go"}}})
	text := strings.Repeat("the retry budget is three attempts and then the job is parked; ", 20)
	for i := range 3000 {
		b.Add(map[string]any{"id": fmt.Sprintf("g%d", i), "type": "gemini", "timestamp": "2026-11-24T10:00:01Z", "content": text,
			"tokens":    map[string]any{"input": 10, "output": 1},
			"toolCalls": []any{map[string]any{"id": fmt.Sprintf("c%d", i), "name": "read_file", "args": map[string]any{"file_path": "/p/a.go"}, "status": "success"}}})
	}
	data := b.Bytes()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := Adapter{}.Measure(bytes.NewReader(data), nil)
	runtime.ReadMemStats(&after)
	if err != nil || m.ToolCalls != 3000 || m.Input != 30000 {
		t.Fatalf("measured %+v, %v", m, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10*uint64(len(data)) {
		t.Errorf("measuring %d bytes allocated %d bytes: more than 10 times the transcript", len(data), alloc)
	}

	huge := append([]byte(`{"id":"big","type":"gemini","content":"`), bytes.Repeat([]byte("x"), agent.MaxTranscriptLine+1)...)
	huge = append(huge, "\"}\n"...)
	data = append(append(lines(`{"sessionId":"s-huge","kind":"main"}`), huge...),
		lines(`{"id":"u1","type":"user","timestamp":"2026-11-24T10:00:00Z","content":[{"text":"after the huge record"}]}`)...)
	m, err = Adapter{}.Measure(bytes.NewReader(data), nil)
	if err != nil || m.Session != "s-huge" || m.Turns != 1 {
		t.Errorf("after a record over the cap: %+v, %v", m, err)
	}
}

func FuzzMeasure(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "session-tools.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(lines(`{"id":"a","type":"user","content":"x"}`, `{"$rewindTo":"a"}`, `{"$set":{"messages":[{"id":"b","type":"gemini","toolCalls":[{"name":"run_shell_command","result":[{"functionResponse":{"response":{"output":"\nExit Code: 2"}}}]}]}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := Adapter{}.Measure(bytes.NewReader(data), func(agent.Seen) {})
		if m.ToolCalls < 0 || m.Turns < 0 || m.FailedTools < 0 || m.FailedTools > m.ToolCalls {
			t.Fatalf("impossible counts: %+v", m)
		}
	})
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The report joins a transcript with cairn log by session id: the id
// Measure reads from a recorded transcript is the one the hooks of the
// same recorded session carried.
func TestMeasuredSessionIsTheHooks(t *testing.T) {
	payload, err := os.ReadFile(filepath.Join("testdata", "SessionStart.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Adapter{}.Decode("SessionStart", payload, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "session-headless.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Adapter{}.Measure(f, nil)
	if err != nil || m.Session == "" || m.Session != e.Session {
		t.Errorf("transcript's session %q, the hook's %q (%v)", m.Session, e.Session, err)
	}
}

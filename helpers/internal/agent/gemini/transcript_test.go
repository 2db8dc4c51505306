package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The transcript Gemini CLI 0.61.0 wrote of a headless session (recorded,
// paths rewritten): the person's prompt and the agent's text, its two
// messages joined; Gemini CLI's session context and the tool call and its
// result left out.
func TestReadTranscriptRecorded(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "session-headless.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := Adapter{}.ReadTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Session != "57dbf6bb-5afd-4a57-8c65-055c28e3272b" || c.Cwd != "/home/ana/src/shop" || c.Agent != "Gemini CLI" || !c.Interactive || c.Sidechain || c.Skipped != 0 {
		t.Errorf("conversation %+v", c)
	}
	if len(c.Messages) != 2 || c.Messages[0].Role != "user" || c.Messages[0].Text != "fix the payment retries" ||
		c.Messages[1].Role != "assistant" || c.Messages[1].Text != "Let me look.\n\nDone.\nDECISION: Keep retry settings in config/retry.toml so they cannot drift." {
		t.Fatalf("messages %+v", c.Messages)
	}
	if c.Messages[0].Time.IsZero() {
		t.Error("no time")
	}
}

// lines joins transcript records.
func lines(recs ...string) []byte { return []byte(strings.Join(recs, "\n") + "\n") }

func TestReplyOf(t *testing.T) {
	const (
		meta     = `{"sessionId":"s1","projectHash":"h","startTime":"2026-11-24T10:00:00Z","kind":"main"}`
		ctx      = `{"$set":{"messages":[{"id":"c","type":"user","content":[{"text":"<session_context>\nmachine\n</session_context>"}]}]}}`
		p1       = `{"id":"p1","type":"user","content":[{"text":"first"}]}`
		r1       = `{"id":"r1","type":"gemini","content":"LEARNED: one"}`
		p2       = `{"id":"p2","type":"user","content":[{"text":"<hook_context>ctx</hook_context>\n\nsecond"}]}`
		r2a      = `{"id":"r2","type":"gemini","content":"Looking"}`
		r2b      = `{"id":"r2","type":"gemini","content":"Looking","toolCalls":[{"name":"run_shell_command"}]}`
		tool     = `{"id":"t2","type":"user","content":[{"functionResponse":{"name":"run_shell_command","response":{"output":"ok"}}}]}`
		r3       = `{"id":"r3","type":"gemini","content":"DECISION: two"}`
		info     = `{"id":"i","type":"info","content":"Request cancelled."}`
		thoughts = `{"id":"r4","type":"gemini","content":[{"text":"hidden","thought":true},{"text":"shown"}]}`
	)
	for _, tc := range []struct {
		name string
		data []byte
		want string
		ok   bool
	}{
		{"one turn", lines(meta, ctx, p1, r1), "LEARNED: one", true},
		{"the last turn, its messages in order, rewritten ones once", lines(meta, p1, r1, p2, r2a, r2b, tool, r3, info), "Looking\nDECISION: two", true},
		{"tool results start no turn", lines(p2, r2a, tool, r3), "Looking\nDECISION: two", true},
		{"a rewind drops the turn after it", lines(meta, p1, r1, p2, r2a, `{"$rewindTo":"p2"}`), "LEARNED: one", true},
		{"a rewind to an unknown id drops all", lines(meta, p1, r1, `{"$rewindTo":"zz"}`), "", false},
		{"$set messages replaces them", lines(meta, p1, r1, `{"$set":{"messages":[`+p2+`,`+r3+`]}}`), "DECISION: two", true},
		{"thoughts left out", lines(p1, thoughts), "shown", true},
		{"no reply yet", lines(meta, p1, r1, p2), "", false},
		{"session context is no prompt", lines(meta, ctx, r1), "", false},
		{"torn and foreign lines skipped", lines(`{"id":`, p1, `[1,2]`, r1, `{"id":"x","type":"user","content":{"text":7}}`), "LEARNED: one", true},
		{"empty", nil, "", false},
	} {
		got, ok := lastTurnReply(tc.data)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// lastReply reads the end of a long transcript only, from a record's
// start; a missing file or a directory is no reply.
func TestLastReply(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "session.jsonl")
	var buf bytes.Buffer
	buf.WriteString(`{"id":"p0","type":"user","content":[{"text":"old"}]}` + "\n")
	big := `{"id":"big","type":"gemini","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for buf.Len() < maxReplyRead+(1<<20) {
		buf.WriteString(big)
	}
	// The last turn is longer than the first read: LastReply reads more.
	buf.WriteString(`{"id":"p1","type":"user","content":[{"text":"new"}]}` + "\n")
	buf.WriteString(`{"id":"r0","type":"gemini","content":"` + strings.Repeat("y", 600<<10) + `"}` + "\n")
	buf.WriteString(`{"id":"r1","type":"gemini","content":"PATTERN: tail"}` + "\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := lastReply(path); !ok || !strings.HasPrefix(got, "yyy") || !strings.HasSuffix(got, "y\nPATTERN: tail") {
		t.Errorf("LastReply = %.20q...%q %v", got, got[max(0, len(got)-20):], ok)
	}
	for _, p := range []string{"", filepath.Join(dir, "missing.jsonl"), dir} {
		if got, ok := lastReply(p); ok {
			t.Errorf("LastReply(%q) = %q", p, got)
		}
	}
}

func FuzzReadTranscript(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "session-headless.jsonl")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"$set":{"messages":[{"id":"a","type":"user","content":"hi"}]}}` + "\n" + `{"$rewindTo":"a"}`))
	f.Add([]byte(`{"id":"a","type":"gemini","content":[{"text":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Adapter{}.ReadTranscript(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range c.Messages {
			if m.Text == "" || m.Role != "user" && m.Role != "assistant" || i > 0 && c.Messages[i-1].Role == m.Role {
				t.Fatalf("message %d: %+v", i, m)
			}
		}
		reply, ok := lastTurnReply(data)
		if ok != (reply != "") {
			t.Fatalf("ReplyOf = %q, %v", reply, ok)
		}
	})
}

// lastTurnReply is the agent's reply of the last turn in transcript data;
// ok is false when there is none.
func lastTurnReply(data []byte) (string, bool) {
	reply, _ := replyOf(data)
	return reply, reply != ""
}

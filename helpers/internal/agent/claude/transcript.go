package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// record is the part of a transcript line the reader uses.
type record struct {
	Type        string `json:"type"`
	SessionID   string `json:"sessionId"`
	Cwd         string `json:"cwd"`
	GitBranch   string `json:"gitBranch"`
	Version     string `json:"version"`
	Entrypoint  string `json:"entrypoint"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	Timestamp   string `json:"timestamp"`
	Message     struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// block is one element of a message's content array.
type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ReadTranscript reads a Claude Code session transcript (the JSONL file a
// hook's transcript_path names) as its conversation. Text of consecutive
// records of one side (an assistant's text, then its tool call, then more
// text) joins into one message; tool calls and results, thinking, meta
// records and everything that is not a user or assistant message are left
// out. It reads at most [event.MaxTranscript] bytes (Cut says so).
func (Adapter) ReadTranscript(r io.Reader) (event.Conversation, error) {
	return readTranscript(r, event.MaxTranscript)
}

// readTranscript is ReadTranscript reading at most max bytes.
func readTranscript(r io.Reader, max int64) (event.Conversation, error) {
	t := transcript{c: event.Conversation{Agent: "Claude Code"}}
	lr := agent.LimitTranscript(r, max)
	first := true
	skipped, err := agent.EachLine(lr, func(line []byte) bool {
		t.add(line, first)
		first = false
		return true
	})
	t.c.Skipped += skipped
	t.c.Messages = t.turns.Messages()
	if err != nil {
		return t.c, fmt.Errorf("read transcript: %w", err)
	}
	t.c.Cut = lr.Cut()
	return t.c, nil
}

// transcript is a conversation being read.
type transcript struct {
	c     event.Conversation
	turns agent.Turns
}

// add folds one record into t.
func (tr *transcript) add(line []byte, first bool) {
	t := &tr.c
	var rec record
	if json.Unmarshal(line, &rec) != nil {
		t.Skipped++
		return
	}
	if first && rec.Type == "mode" {
		t.Interactive = true
	}
	if rec.Entrypoint == "cli" {
		t.Interactive = true
	}
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&t.Session, rec.SessionID}, {&t.Cwd, rec.Cwd}, {&t.Version, rec.Version},
	} {
		if *f.dst == "" && f.v != "" {
			*f.dst = f.v
		}
	}
	if rec.GitBranch != "" {
		t.Branch = rec.GitBranch // the branch the session ended on
	}
	if rec.Type != "user" && rec.Type != "assistant" || rec.IsMeta {
		return
	}
	t.Sidechain = t.Sidechain || rec.IsSidechain
	text := contentText(rec.Message.Content)
	if text == "" || rec.Type == "user" && clientWrapper(text) {
		return
	}
	at, _ := time.Parse(time.RFC3339Nano, rec.Timestamp)
	tr.turns.Add(rec.Type, text, at)
}

// contentText is a message's text: the string itself, or its text blocks
// joined (tool_use, tool_result, thinking and images left out).
func contentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return strings.TrimSpace(s)
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, strings.TrimSpace(b.Text))
		}
	}
	return strings.Join(parts, "\n\n")
}

// wrappers begin the user records Claude Code writes for its own commands
// and their output (/exit, /compact, a ! shell line) and, from 2.1.330
// (whose Agent tool runs subagents in the background), for a background
// task that ended (<task-notification>, which it also submits as a
// prompt): nobody typed them as a message.
var wrappers = []string{"<command-name>", "<command-message>", "<local-command-", "<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>"}

// clientWrapper reports whether a user record's text is one of Claude
// Code's command wrappers.
func clientWrapper(text string) bool {
	t := strings.TrimSpace(text)
	for _, w := range wrappers {
		if strings.HasPrefix(t, w) {
			return true
		}
	}
	return false
}

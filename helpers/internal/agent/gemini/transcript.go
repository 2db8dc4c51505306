package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// Gemini CLI 0.61.0 keeps each session's transcript as JSON lines under
// ~/.gemini/tmp/<project>/chats/ (the hook's transcript_path): a metadata
// record (sessionId, projectHash, startTime, kind), then message records
// (id, timestamp, type user or gemini or info..., content), a message
// written again whole, under its id, whenever it changes (its tool calls,
// its token counts), metadata updates ({"$set": {...}}, which may replace
// every message) and rewinds ({"$rewindTo": id}, which drop that message
// and those after it).

// maxReplyRead caps how much of a transcript's end LastReply reads to find
// the last turn.
const maxReplyRead = 8 << 20

// record is the part of a transcript line the reader uses.
type record struct {
	// Metadata.
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
	// A message.
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Content   json.RawMessage `json:"content"`
	// An update, or a rewind.
	Set *struct {
		Messages *[]record `json:"messages"`
	} `json:"$set"`
	RewindTo *string `json:"$rewindTo"`
}

// message is one message of a transcript, as the reader keeps it.
type message struct {
	id   string
	role string // "user" or "assistant"
	text string
	// prompt is true for a user message that is not only tool results: a
	// turn begins with it.
	prompt bool
	time   time.Time
}

// transcript is what the records of a transcript say, folded.
type transcript struct {
	session, kind string
	cwd           string // the first workspace directory Gemini CLI's session context names
	messages      []message
	index         map[string]int // message id -> position in messages
	skipped       int
}

// add folds one record into t.
func (t *transcript) add(line []byte) {
	var rec record
	if json.Unmarshal(line, &rec) != nil {
		t.skipped++
		return
	}
	switch {
	case rec.RewindTo != nil:
		if i, ok := t.index[*rec.RewindTo]; ok {
			for _, m := range t.messages[i:] {
				delete(t.index, m.id)
			}
			t.messages = t.messages[:i]
		} else {
			t.messages, t.index = nil, nil
		}
	case rec.Set != nil:
		if rec.Set.Messages != nil {
			t.messages, t.index = nil, nil
			for _, m := range *rec.Set.Messages {
				t.put(m)
			}
		}
	case rec.ID != "":
		t.put(rec)
	case rec.SessionID != "":
		if t.session == "" {
			t.session = rec.SessionID
		}
		if rec.Kind != "" {
			t.kind = rec.Kind
		}
	}
}

// put adds a message record, or replaces the message of its id.
func (t *transcript) put(rec record) {
	if rec.Type == "user" && t.cwd == "" {
		t.cwd = workspaceDir(contentText(rec.Content))
	}
	m, ok := toMessage(rec)
	if !ok {
		return
	}
	if t.index == nil {
		t.index = map[string]int{}
	}
	if i, ok := t.index[m.id]; ok {
		t.messages[i] = m
		return
	}
	t.index[m.id] = len(t.messages)
	t.messages = append(t.messages, m)
}

// toMessage turns a user or gemini record into a message; other types
// (info, error, warning) are not the conversation.
func toMessage(rec record) (message, bool) {
	m := message{id: rec.ID}
	m.time, _ = time.Parse(time.RFC3339Nano, rec.Timestamp)
	switch rec.Type {
	case "user":
		m.role = "user"
		text, prompt := userText(rec.Content)
		m.text, m.prompt = text, prompt
	case "gemini":
		m.role = "assistant"
		m.text = strings.TrimSpace(contentText(rec.Content))
	default:
		return m, false
	}
	return m, rec.ID != ""
}

// sessionContext begins the message Gemini CLI writes first in every
// session, describing the machine and the workspace, which nobody typed.
const sessionContext = "<session_context>"

// workspaceDirs heads the list of the session's workspace directories in
// Gemini CLI's session context; the first one is where it started.
const workspaceDirs = "- **Workspace Directories:**\n"

// workspaceDir is the first workspace directory a session context names,
// or "" for any other text.
func workspaceDir(text string) string {
	if !strings.HasPrefix(strings.TrimSpace(text), sessionContext) {
		return ""
	}
	_, rest, ok := strings.Cut(text, workspaceDirs)
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
	if !ok {
		return ""
	}
	return strings.TrimSpace(dir)
}

// userText is a user message's text, without the <hook_context> blocks
// hooks added; prompt is false for a message of tool results only, or
// Gemini CLI's own session context.
func userText(raw json.RawMessage) (text string, prompt bool) {
	text = contentText(raw)
	if strings.HasPrefix(strings.TrimSpace(text), sessionContext) {
		return "", false
	}
	return withoutHookContext(text), hasText(raw)
}

// hasText reports whether content has a text part (a string is one).
func hasText(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		return true
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return false
	}
	for _, p := range parts {
		if p.Text != nil {
			return true
		}
	}
	return false
}

// contentText is a content's text: the string itself, or its text parts
// joined (function calls and responses, thoughts and inline data left
// out).
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
		return s
	}
	var parts []struct {
		Text    string `json:"text"`
		Thought bool   `json:"thought"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		var one struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &one) != nil {
			return ""
		}
		return one.Text
	}
	var out []string
	for _, p := range parts {
		if !p.Thought && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "")
}

// ReadTranscript reads a Gemini CLI session transcript (the JSONL file a
// hook's transcript_path names) as its conversation: the person's prompts
// (without hook context) and the agent's replies, consecutive messages of
// one side joined; tool calls and results, thoughts, Gemini CLI's own
// session context and its info, warning and error messages left out.
// The working directory is the first workspace directory Gemini CLI's
// session context names. Gemini CLI's transcript names no git branch and
// no version of its own, and does not say whether the session was
// interactive or a headless run (gemini -p): every session reads as
// interactive. It reads at most [event.MaxTranscript] bytes (Cut says
// so).
func (Adapter) ReadTranscript(r io.Reader) (event.Conversation, error) {
	return readTranscript(r, event.MaxTranscript)
}

// readTranscript is ReadTranscript reading at most max bytes.
func readTranscript(r io.Reader, max int64) (event.Conversation, error) {
	var t transcript
	lr := agent.LimitTranscript(r, max)
	skipped, err := agent.EachLine(lr, func(line []byte) bool {
		t.add(line)
		return true
	})
	t.skipped += skipped
	if err != nil {
		return t.conversation(), fmt.Errorf("read transcript: %w", err)
	}
	c := t.conversation()
	c.Cut = lr.Cut()
	return c, nil
}

// conversation is what t says, as cairn's conversation.
func (t *transcript) conversation() event.Conversation {
	c := event.Conversation{
		Session:     t.session,
		Cwd:         t.cwd,
		Agent:       "Gemini CLI",
		Interactive: true,
		Sidechain:   t.kind == "subagent",
		Skipped:     t.skipped,
	}
	var turns agent.Turns
	for _, m := range t.messages {
		if text := strings.TrimSpace(m.text); text != "" {
			turns.Add(m.role, text, m.time)
		}
	}
	c.Messages = turns.Messages()
	return c
}

// lastTurn is the text of the agent's messages after the last prompt, in
// order, joined by newlines; prompt is false when t has no prompt.
func (t *transcript) lastTurn() (reply string, prompt bool) {
	start := -1
	for i := len(t.messages) - 1; i >= 0; i-- {
		if t.messages[i].role == "user" && t.messages[i].prompt {
			start = i
			break
		}
	}
	if start < 0 {
		return "", false
	}
	var out []string
	for _, m := range t.messages[start+1:] {
		if m.role == "assistant" && strings.TrimSpace(m.text) != "" {
			out = append(out, m.text)
		}
	}
	return strings.Join(out, "\n"), true
}

// firstReplyRead is how much of a transcript's end LastReply reads first;
// it reads four times more each time the last prompt is not in it, up to
// maxReplyRead.
const firstReplyRead = 256 << 10

// lastReply reads the agent's reply of the last turn (every text it wrote
// after the last prompt) from the transcript at path. It reads the file's
// end, more of it until the last prompt is in what it read, and no more
// than its last 8 MiB; ok is false when there is no such file, or no
// prompt followed by a reply in what it read.
func lastReply(path string) (string, bool) {
	if path == "" {
		return "", false
	}
	f, err := fsx.OpenRegular(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	size := fi.Size()
	for n := int64(firstReplyRead); ; n *= 4 {
		n = min(n, maxReplyRead, size)
		data := make([]byte, n)
		if _, err := f.ReadAt(data, size-n); err != nil && err != io.EOF {
			return "", false
		}
		if n < size {
			// The first line read may be a record's end: start at the
			// next.
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				data = nil
			} else {
				data = data[i+1:]
			}
		}
		reply, prompt := replyOf(data)
		if prompt || n == size || n == maxReplyRead {
			return reply, reply != ""
		}
	}
}

// replyOf is the agent's reply of the last turn in data, and whether data
// holds a prompt at all.
func replyOf(data []byte) (string, bool) {
	var t transcript
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && len(line) <= agent.MaxTranscriptLine {
			t.add(line)
		}
	}
	return t.lastTurn()
}

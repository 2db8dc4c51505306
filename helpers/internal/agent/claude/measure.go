package claude

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// Transcripts lists Claude Code's transcripts of the project at root on
// this machine: the session files in $CLAUDE_CONFIG_DIR/projects (else
// ~/.claude/projects) under the directory Claude Code names after the
// project's path, every character but a letter or digit made a dash.
func (Adapter) Transcripts(getenv func(string) string, root string) ([]string, error) {
	base := getenv("CLAUDE_CONFIG_DIR")
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if !filepath.IsAbs(home) {
			return nil, nil
		}
		base = filepath.Join(home, ".claude")
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range []string{root, resolved(root)} {
		dir := filepath.Join(base, "projects", ProjectDirName(r))
		if seen[dir] {
			continue
		}
		seen[dir] = true
		list, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		for _, e := range list {
			if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".jsonl") {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	return out, nil
}

func resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// ProjectDirName is the name of the directory under ~/.claude/projects
// that holds the sessions of the project at path.
func ProjectDirName(path string) string {
	b := []byte(path)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// measureRecord is the part of a transcript line Measure reads, picked
// with [jsonfield]: a record's large parts (a tool's output, a file's
// contents) are skipped, not decoded.
type measureRecord struct {
	Type, Subtype, SessionID, Cwd, Timestamp string
	IsSidechain, IsMeta, IsCompactSummary    bool
	// The message.
	ID                                   string
	Usage                                bool
	Input, Output, CacheRead, CacheWrite int64
	// Content is the message's content: a string (Text, IsText) or a list
	// of blocks (read by blocks).
	Text    string
	IsText  bool
	Content jsonfield.Value
}

// read fills rec from a transcript line; false when the line is not one
// well-formed JSON object.
func (rec *measureRecord) read(line []byte) bool {
	if !jsonfield.Valid(line) {
		return false
	}
	v := jsonfield.Parse(line)
	if !v.IsObject() {
		return false
	}
	v.ForEach(func(k, v jsonfield.Value) bool {
		switch k.Str {
		case "type":
			rec.Type = v.Str
		case "subtype":
			rec.Subtype = v.Str
		case "sessionId":
			rec.SessionID = v.Str
		case "cwd":
			rec.Cwd = v.Str
		case "timestamp":
			rec.Timestamp = v.Str
		case "isSidechain":
			rec.IsSidechain = v.Type == jsonfield.True
		case "isMeta":
			rec.IsMeta = v.Type == jsonfield.True
		case "isCompactSummary":
			rec.IsCompactSummary = v.Type == jsonfield.True
		case "message":
			v.ForEach(rec.message)
		}
		return true
	})
	return true
}

// message reads one field of a record's message.
func (rec *measureRecord) message(k, v jsonfield.Value) bool {
	switch k.Str {
	case "id":
		rec.ID = v.Str
	case "content":
		rec.Text, rec.IsText = v.Str, v.Type == jsonfield.String
		if v.IsArray() {
			rec.Content = v
		}
	case "usage":
		rec.Usage = v.IsObject()
		v.ForEach(func(k, v jsonfield.Value) bool {
			switch k.Str {
			case "input_tokens":
				rec.Input = v.Int()
			case "output_tokens":
				rec.Output = v.Int()
			case "cache_read_input_tokens":
				rec.CacheRead = v.Int()
			case "cache_creation_input_tokens":
				rec.CacheWrite = v.Int()
			}
			return true
		})
	}
	return true
}

// measureBlock is one element of a message's content, as Measure reads it.
type measureBlock struct {
	Type, Text, ID, Name string
	IsError              bool
	// The tool's input.
	FilePath, Path, Notebook, OldString, NewString, Content string
}

// read fills b from a content block; the tool's input only for a
// tool_use (whichever order the fields come in).
func (b *measureBlock) read(data jsonfield.Value) {
	var input jsonfield.Value
	data.ForEach(func(k, v jsonfield.Value) bool {
		switch k.Str {
		case "type":
			b.Type = v.Str
		case "text":
			b.Text = v.Str
		case "id":
			b.ID = v.Str
		case "name":
			b.Name = v.Str
		case "is_error":
			b.IsError = v.Type == jsonfield.True
		case "input":
			input = v
		}
		return true
	})
	if b.Type != "tool_use" || !input.IsObject() {
		return
	}
	input.ForEach(func(k, v jsonfield.Value) bool {
		switch k.Str {
		case "file_path":
			b.FilePath = v.Str
		case "path":
			b.Path = v.Str
		case "notebook_path":
			b.Notebook = v.Str
		case "old_string":
			b.OldString = v.Str
		case "new_string":
			b.NewString = v.Str
		case "content":
			b.Content = v.Str
		}
		return true
	})
}

// Measure reads a Claude Code transcript for `cairn report`: the tokens
// of each model answer (counted once, though Claude Code writes one
// record per content block), tool calls and their failed results, the
// typed prompts, compactions (a compact boundary), and, for see, the
// prompts, the replies' text, the files tools named and the edits (Edit,
// MultiEdit's first, Write). It reads at most [event.MaxTranscript] bytes.
func (Adapter) Measure(r io.Reader, see func(agent.Seen)) (agent.Measured, error) {
	var m agent.Measured
	if see == nil {
		see = func(agent.Seen) {}
	}
	answers := map[string]bool{}
	calls := map[string]bool{}
	_, err := agent.EachLine(agent.LimitTranscript(r, event.MaxTranscript), func(line []byte) bool {
		measureLine(&m, line, answers, calls, see)
		return true
	})
	if err != nil {
		return m, fmt.Errorf("read transcript: %w", err)
	}
	return m, nil
}

// measureLine folds one record into m.
func measureLine(m *agent.Measured, line []byte, answers, calls map[string]bool, see func(agent.Seen)) {
	var rec measureRecord
	if !rec.read(line) {
		return
	}
	if m.Session == "" && rec.SessionID != "" {
		m.Session = rec.SessionID
		see(agent.Seen{Kind: agent.SeenSession, Text: rec.SessionID})
	}
	if m.Cwd == "" {
		m.Cwd = rec.Cwd
	}
	at, err := time.Parse(time.RFC3339Nano, rec.Timestamp)
	if err == nil {
		if m.Start.IsZero() || at.Before(m.Start) {
			m.Start = at
		}
		if at.After(m.End) {
			m.End = at
		}
	}
	if rec.Type == "system" && rec.Subtype == "compact_boundary" {
		m.Compactions++
		return
	}
	if rec.Type != "user" && rec.Type != "assistant" || rec.IsMeta || rec.IsCompactSummary {
		return
	}
	m.Sidechain = m.Sidechain || rec.IsSidechain
	if rec.Usage && rec.Type == "assistant" && (rec.ID == "" || !answers[rec.ID]) {
		answers[rec.ID] = true
		m.Input += rec.Input
		m.Output += rec.Output
		m.CacheRead += rec.CacheRead
		m.CacheWrite += rec.CacheWrite
	}
	if rec.IsText {
		// A plain string: the person's prompt (or the client's wrapper).
		if text := rec.Text; rec.Type == "user" && text != "" && !clientWrapper(text) {
			m.Turns++
			see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: text})
		}
		return
	}
	var typed []string
	rec.Content.ForEach(func(_, v jsonfield.Value) bool {
		var b measureBlock
		b.read(v)
		switch b.Type {
		case "text":
			if rec.Type == "assistant" {
				see(agent.Seen{Kind: agent.SeenReply, At: at, Text: b.Text})
			} else if b.Text != "" && !clientWrapper(b.Text) {
				typed = append(typed, b.Text)
			}
		case "tool_use":
			if b.ID != "" && calls[b.ID] {
				return true
			}
			calls[b.ID] = true
			m.ToolCalls++
			path := b.FilePath
			if path == "" {
				path = b.Notebook
			}
			if path == "" {
				path = b.Path
			}
			switch {
			case path == "":
			case b.Name == "Edit" || b.Name == "MultiEdit":
				see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, Old: b.OldString, New: b.NewString})
			case b.Name == "Write":
				see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, New: b.Content})
			default:
				see(agent.Seen{Kind: agent.SeenTouch, At: at, Path: path})
			}
		case "tool_result":
			if b.IsError {
				m.FailedTools++
			}
		}
		return true
	})
	if len(typed) > 0 {
		m.Turns++
		see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: strings.Join(typed, "\n")})
	}
}

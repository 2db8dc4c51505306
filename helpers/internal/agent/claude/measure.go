package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
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

// measureRecord is the part of a transcript line Measure reads.
type measureRecord struct {
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	SessionID       string `json:"sessionId"`
	Cwd             string `json:"cwd"`
	IsSidechain     bool   `json:"isSidechain"`
	IsMeta          bool   `json:"isMeta"`
	IsCompactSumary bool   `json:"isCompactSummary"`
	Timestamp       string `json:"timestamp"`
	Message         struct {
		ID      string         `json:"id"`
		Content measureContent `json:"content"`
		Usage   *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// measureContent is a message's content: a string (the person's prompt,
// or the client's wrapper) or a list of blocks; anything else is neither.
type measureContent struct {
	text   *string
	blocks []measureBlock
}

// UnmarshalJSON decodes a string or a list of blocks; it never fails, so
// that a record of an odd content still counts its tokens and its time.
func (c *measureContent) UnmarshalJSON(data []byte) error {
	switch data[0] {
	case '"':
		var s string
		if json.Unmarshal(data, &s) == nil {
			c.text = &s
		}
	case '[':
		if json.Unmarshal(data, &c.blocks) != nil {
			c.blocks = nil
		}
	}
	return nil
}

// readers are the buffered readers Measure reads transcripts through,
// reused: `cairn report` reads thousands.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// measureLineOf reads one line without its end into scratch (or, when it
// fits in br's buffer, returns it from there, valid until the next read),
// up to maxTranscriptLine bytes; past that it discards the rest of the
// line and reports errLineTooLong.
func measureLineOf(br *bufio.Reader, scratch *[]byte) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.TrimRight(chunk, "\r\n"), err
	}
	line := append((*scratch)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		if len(line)+len(chunk) > maxTranscriptLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			*scratch = line[:0]
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
	}
	*scratch = line[:0]
	return bytes.TrimRight(line, "\r\n"), err
}

// measureBlock is one element of a message's content, as Measure reads it.
type measureBlock struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	IsError bool   `json:"is_error"`
	Input   struct {
		FilePath  string `json:"file_path"`
		Path      string `json:"path"`
		Notebook  string `json:"notebook_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	} `json:"input"`
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
	br := readers.Get().(*bufio.Reader)
	br.Reset(agent.LimitTranscript(r, event.MaxTranscript))
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	var scratch []byte
	for {
		line, err := measureLineOf(br, &scratch)
		if len(bytes.TrimSpace(line)) > 0 {
			measureLine(&m, line, answers, calls, see)
		}
		if errors.Is(err, errLineTooLong) {
			continue
		}
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return m, fmt.Errorf("read transcript: %w", err)
		}
	}
}

// measureLine folds one record into m.
func measureLine(m *agent.Measured, line []byte, answers, calls map[string]bool, see func(agent.Seen)) {
	var rec measureRecord
	if json.Unmarshal(line, &rec) != nil {
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
	if rec.Type != "user" && rec.Type != "assistant" || rec.IsMeta || rec.IsCompactSumary {
		return
	}
	m.Sidechain = m.Sidechain || rec.IsSidechain
	if u := rec.Message.Usage; u != nil && rec.Type == "assistant" && (rec.Message.ID == "" || !answers[rec.Message.ID]) {
		answers[rec.Message.ID] = true
		m.Input += u.Input
		m.Output += u.Output
		m.CacheRead += u.CacheRead
		m.CacheWrite += u.CacheWrite
	}
	if t := rec.Message.Content.text; t != nil {
		// A plain string: the person's prompt (or the client's wrapper).
		if text := *t; rec.Type == "user" && text != "" && !clientWrapper(text) {
			m.Turns++
			see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: text})
		}
		return
	}
	var typed []string
	for _, b := range rec.Message.Content.blocks {
		switch b.Type {
		case "text":
			if rec.Type == "assistant" {
				see(agent.Seen{Kind: agent.SeenReply, At: at, Text: b.Text})
			} else if b.Text != "" && !clientWrapper(b.Text) {
				typed = append(typed, b.Text)
			}
		case "tool_use":
			if b.ID != "" && calls[b.ID] {
				continue
			}
			calls[b.ID] = true
			m.ToolCalls++
			path := b.Input.FilePath
			if path == "" {
				path = b.Input.Notebook
			}
			if path == "" {
				path = b.Input.Path
			}
			switch {
			case path == "":
			case b.Name == "Edit" || b.Name == "MultiEdit":
				see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, Old: b.Input.OldString, New: b.Input.NewString})
			case b.Name == "Write":
				see(agent.Seen{Kind: agent.SeenEdit, At: at, Path: path, New: b.Input.Content})
			default:
				see(agent.Seen{Kind: agent.SeenTouch, At: at, Path: path})
			}
		case "tool_result":
			if b.IsError {
				m.FailedTools++
			}
		}
	}
	if len(typed) > 0 {
		m.Turns++
		see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: strings.Join(typed, "\n")})
	}
}

package claude

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// The reference the scanning reader is checked against: the same reading
// of a transcript line with encoding/json.

// refMeasureRecord is the part of a transcript line Measure reads.
type refMeasureRecord struct {
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	SessionID       string `json:"sessionId"`
	Cwd             string `json:"cwd"`
	IsSidechain     bool   `json:"isSidechain"`
	IsMeta          bool   `json:"isMeta"`
	IsCompactSumary bool   `json:"isCompactSummary"`
	Timestamp       string `json:"timestamp"`
	Message         struct {
		ID      string            `json:"id"`
		Content refMeasureContent `json:"content"`
		Usage   *struct {
			Input      int64 `json:"input_tokens"`
			Output     int64 `json:"output_tokens"`
			CacheRead  int64 `json:"cache_read_input_tokens"`
			CacheWrite int64 `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// refMeasureContent is a message's content: a string (the person's prompt,
// or the client's wrapper) or a list of blocks; anything else is neither.
type refMeasureContent struct {
	text   *string
	blocks []refMeasureBlock
}

// UnmarshalJSON decodes a string or a list of blocks; it never fails, so
// that a record of an odd content still counts its tokens and its time.
func (c *refMeasureContent) UnmarshalJSON(data []byte) error {
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

// refMeasureBlock is one element of a message's content, as Measure reads it.
type refMeasureBlock struct {
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

// refMeasureLine folds one record into m.
func refMeasureLine(m *agent.Measured, line []byte, answers, calls map[string]bool, see func(agent.Seen)) {
	var rec refMeasureRecord
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

// measureBoth reads data line by line with the scanning reader and with
// the reference, and fails on any difference in the figures or in what
// each saw.
func measureBoth(t *testing.T, data []byte) {
	t.Helper()
	var got, want agent.Measured
	var seenGot, seenWant []agent.Seen
	ga, gc, wa, wc := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if !json.Valid(line) {
			continue
		}
		measureLine(&got, line, ga, gc, func(s agent.Seen) { seenGot = append(seenGot, s) })
		refMeasureLine(&want, line, wa, wc, func(s agent.Seen) { seenWant = append(seenWant, s) })
	}
	if got != want {
		t.Fatalf("measured %+v, the reference %+v", got, want)
	}
	if !slices.Equal(seenGot, seenWant) {
		t.Fatalf("saw %+v, the reference %+v", seenGot, seenWant)
	}
}

// The scanning reader reads every recorded transcript as encoding/json
// does.
func TestMeasureMatchesReference(t *testing.T) {
	list, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.jsonl"))
	if err != nil || len(list) == 0 {
		t.Fatal(list, err)
	}
	for _, p := range list {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		measureBoth(t, data)
	}
}

func FuzzMeasureMatchesReference(f *testing.F) {
	list, _ := filepath.Glob(filepath.Join("testdata", "transcripts", "*.jsonl"))
	for _, p := range list {
		data, _ := os.ReadFile(p)
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if len(line) < 4000 {
				f.Add(line)
			}
		}
	}
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"a","old_string":"x\ny","new_string":"y"}}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(line, &probe) != nil || caseVariant(line) {
			return
		}
		measureBoth(t, line)
	})
}

// caseVariant reports a line the two readers read apart by design:
// encoding/json matches keys regardless of case and decodes escapes in
// keys, and gives up on a whole record (or a whole content) for a field
// of the wrong type, where the scanning reader reads the rest.
func caseVariant(line []byte) bool {
	if bytes.Contains(line, []byte(`\u`)) {
		return true
	}
	lower := bytes.ToLower(line)
	for _, k := range []string{"type", "subtype", "sessionid", "cwd", "timestamp", "issidechain", "ismeta", "iscompactsummary", "message",
		"id", "content", "usage", "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
		"text", "name", "is_error", "input", "file_path", "path", "notebook_path", "old_string", "new_string"} {
		if bytes.Count(lower, []byte(`"`+k+`"`)) != bytes.Count(line, []byte(`"`+k+`"`)) {
			return true
		}
	}
	var rec refMeasureRecord
	if json.Unmarshal(line, &rec) != nil {
		return true
	}
	var msg struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &msg) == nil && len(msg.Message.Content) > 0 && msg.Message.Content[0] == '[' {
		var blocks []refMeasureBlock
		if json.Unmarshal(msg.Message.Content, &blocks) != nil {
			return true
		}
	}
	// A key given twice: encoding/json merges objects, Measure reads
	// each in turn.
	var walk func(v jsonfield.Value)
	dup := false
	walk = func(v jsonfield.Value) {
		keys := map[string]bool{}
		v.ForEach(func(k, v jsonfield.Value) bool {
			if keys[k.Str] {
				dup = true
			}
			keys[k.Str] = true
			if v.IsObject() || v.IsArray() {
				walk(v)
			}
			return true
		})
	}
	walk(jsonfield.Parse(line))
	return dup
}

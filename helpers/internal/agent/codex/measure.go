package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Transcripts lists Codex's rollout files of sessions in the project at
// root on this machine: those under $CODEX_HOME/sessions (else
// ~/.codex/sessions) whose first record, the session's meta, names a
// working directory inside root.
func (Adapter) Transcripts(getenv func(string) string, root string) ([]string, error) {
	home := getenv("HOME")
	if !filepath.IsAbs(home) && !filepath.IsAbs(getenv("CODEX_HOME")) {
		return nil, nil
	}
	dir := filepath.Join(codexHome(getenv("CODEX_HOME"), home), "sessions")
	roots := []string{filepath.Clean(root)}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != roots[0] {
		roots = append(roots, r)
	}
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return fs.SkipAll
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasPrefix(d.Name(), "rollout-") || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		if cwd := rolloutCwd(path); cwd != "" && inside(cwd, roots) {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// rolloutCwd is the working directory a rollout's first record names.
func rolloutCwd(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var line []byte
	agent.EachLine(f, func(l []byte) bool {
		line = append(line, l...)
		return false
	})
	var rec record
	var m sessionMeta
	if json.Unmarshal(line, &rec) != nil || rec.Type != "session_meta" || json.Unmarshal(rec.Payload, &m) != nil {
		return ""
	}
	return m.Cwd
}

func inside(dir string, roots []string) bool {
	dir = filepath.Clean(dir)
	for _, r := range roots {
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// measureMsg is the part of an event_msg or response_item payload Measure
// reads.
type measureMsg struct {
	Type string `json:"type"`
	Info *struct {
		Total struct {
			Input      int64 `json:"input_tokens"`
			Cached     int64 `json:"cached_input_tokens"`
			CacheWrite int64 `json:"cache_write_input_tokens"`
			Output     int64 `json:"output_tokens"`
		} `json:"total_token_usage"`
	} `json:"info"`
	Item *struct {
		Type     string `json:"type"`
		ExitCode *int   `json:"exit_code"`
		Content  []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

// Measure reads a Codex rollout for `cairn report`: the session's token
// totals (the last token_count), the model's tool calls (function and
// custom tool calls) and the shell commands that exited non-zero, the
// person's messages, compactions, and, for see, the prompts and replies.
// Codex's file edits (apply_patch) are not read as edits. It reads at most
// [event.MaxTranscript] bytes.
func (Adapter) Measure(r io.Reader, see func(agent.Seen)) (agent.Measured, error) {
	var m agent.Measured
	if see == nil {
		see = func(agent.Seen) {}
	}
	_, err := agent.EachLine(agent.LimitTranscript(r, event.MaxTranscript), func(line []byte) bool {
		measureRecord(&m, line, see)
		return true
	})
	if err != nil {
		return m, fmt.Errorf("read codex transcript: %w", err)
	}
	return m, nil
}

func measureRecord(m *agent.Measured, line []byte, see func(agent.Seen)) {
	var rec record
	if json.Unmarshal(line, &rec) != nil {
		return
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
	switch rec.Type {
	case "session_meta":
		var meta sessionMeta
		if m.Session == "" && json.Unmarshal(rec.Payload, &meta) == nil && meta.ID != "" {
			var c event.Conversation
			readMeta(&c, meta)
			m.Session, m.Cwd, m.Sidechain = c.Session, c.Cwd, c.Sidechain
			see(agent.Seen{Kind: agent.SeenSession, Text: m.Session})
		}
		return
	case "compacted":
		m.Compactions++
		return
	case "response_item", "event_msg":
	default:
		return
	}
	var p measureMsg
	if json.Unmarshal(rec.Payload, &p) != nil {
		return
	}
	switch {
	case rec.Type == "response_item" && (p.Type == "function_call" || p.Type == "custom_tool_call" || p.Type == "local_shell_call"):
		m.ToolCalls++
	case p.Type == "token_count" && p.Info != nil:
		t := p.Info.Total
		m.Input, m.Output, m.CacheRead, m.CacheWrite = t.Input, t.Output, t.Cached, t.CacheWrite
	case p.Type == "item_completed" && p.Item != nil:
		var parts []string
		for _, c := range p.Item.Content {
			if strings.EqualFold(c.Type, "text") && c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
		switch p.Item.Type {
		case "UserMessage":
			m.Turns++
			see(agent.Seen{Kind: agent.SeenPrompt, At: at, Text: strings.Join(parts, "\n")})
		case "AgentMessage":
			see(agent.Seen{Kind: agent.SeenReply, At: at, Text: strings.Join(parts, "\n")})
		case "CommandExecution":
			if p.Item.ExitCode != nil && *p.Item.ExitCode != 0 {
				m.FailedTools++
			}
		}
	}
}

// Unrecorded: Codex's file edits (apply_patch) are not read as edits.
func (Adapter) Unrecorded() []string { return []string{agent.FigureEditsReverted} }

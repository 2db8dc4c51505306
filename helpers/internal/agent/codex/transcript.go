package codex

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

// record is one line of a Codex rollout file ($CODEX_HOME/sessions/...,
// the transcript_path of its hooks).
type record struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// sessionMeta is the payload of a rollout's session_meta record.
type sessionMeta struct {
	ID         string          `json:"id"`
	Cwd        string          `json:"cwd"`
	CLIVersion string          `json:"cli_version"`
	Source     json.RawMessage `json:"source"`
	Git        *struct {
		Branch string `json:"branch"`
	} `json:"git"`
}

// eventMsg is the payload of an event_msg record: Codex 0.169 writes each
// finished item (item_completed: the person's UserMessage, the model's
// AgentMessage); older versions wrote user_message and agent_message.
type eventMsg struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Item    *struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"item"`
}

// ReadTranscript reads a Codex rollout file as its conversation: the
// person's messages and the model's replies as the session showed them
// (not the instructions, environment and hook context Codex adds to the
// model's input, nor tool calls and their output). It reads from any
// line (the compaction capture starts mid-file); a line it cannot read is
// counted in Skipped, never fatal. It reads at most [event.MaxTranscript]
// bytes (Cut says so).
func (Adapter) ReadTranscript(r io.Reader) (event.Conversation, error) {
	return readTranscript(r, event.MaxTranscript)
}

// readTranscript is ReadTranscript reading at most max bytes.
func readTranscript(r io.Reader, max int64) (event.Conversation, error) {
	c := event.Conversation{Agent: "Codex"}
	var items, legacy []event.Message
	lr := agent.LimitTranscript(r, max)
	skipped, err := agent.EachLine(lr, func(line []byte) bool {
		var rec record
		if json.Unmarshal(line, &rec) != nil || rec.Type == "" {
			c.Skipped++
			return true
		}
		when, _ := time.Parse(time.RFC3339Nano, rec.Timestamp)
		switch rec.Type {
		case "session_meta":
			var m sessionMeta
			if json.Unmarshal(rec.Payload, &m) != nil {
				c.Skipped++
				return true
			}
			readMeta(&c, m)
		case "event_msg":
			var m eventMsg
			if json.Unmarshal(rec.Payload, &m) != nil {
				c.Skipped++
				return true
			}
			switch {
			case m.Type == "item_completed" && m.Item != nil && (m.Item.Type == "UserMessage" || m.Item.Type == "AgentMessage"):
				var parts []string
				for _, p := range m.Item.Content {
					if strings.EqualFold(p.Type, "text") && p.Text != "" {
						parts = append(parts, p.Text)
					}
				}
				role := "user"
				if m.Item.Type == "AgentMessage" {
					role = "assistant"
				}
				if text := strings.Join(parts, "\n"); text != "" {
					items = append(items, event.Message{Role: role, Text: text, Time: when})
				}
			case m.Type == "user_message" && m.Message != "":
				legacy = append(legacy, event.Message{Role: "user", Text: m.Message, Time: when})
			case m.Type == "agent_message" && m.Message != "":
				legacy = append(legacy, event.Message{Role: "assistant", Text: m.Message, Time: when})
			}
		}
		return true
	})
	c.Skipped += skipped
	if err != nil {
		return c, fmt.Errorf("read codex transcript: %w", err)
	}
	c.Messages = items
	if len(items) == 0 {
		c.Messages = legacy
	}
	c.Cut = lr.Cut()
	return c, nil
}

// readMeta takes the session's id, cwd, branch and version from the first
// session_meta record, and whether a person typed into it (Codex's exec
// runs are headless; a subagent's session is a sidechain).
func readMeta(c *event.Conversation, m sessionMeta) {
	if c.Session != "" {
		return
	}
	c.Session, c.Cwd, c.Version = m.ID, m.Cwd, m.CLIVersion
	if m.Git != nil {
		c.Branch = m.Git.Branch
	}
	var source string
	switch {
	case json.Unmarshal(m.Source, &source) == nil:
		c.Interactive = source != "" && source != "exec"
	case bytes.Contains(m.Source, []byte(`"subagent"`)):
		c.Sidechain = true
	}
}

// Package hook speaks Claude Code's hook protocol: the event names, the
// payload read from stdin, and the JSON written to stdout. It imports none
// of cairn's storage.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Events cairn handles, by Claude Code's own names.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	SessionEnd         = "SessionEnd"
)

// Known reports whether event is one cairn registers for.
func Known(event string) bool {
	switch event {
	case SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact, SessionEnd:
		return true
	}
	return false
}

// MaxPayload caps how much of stdin a hook reads. Claude Code's payloads
// carry a tool's output, which can be large; past this, the payload is
// refused rather than held in memory.
const MaxPayload = 64 << 20

// Payload is the part of an event's JSON that cairn uses.
type Payload struct {
	SessionID            string    `json:"session_id"`
	TranscriptPath       string    `json:"transcript_path"`
	Cwd                  string    `json:"cwd"`
	HookEventName        string    `json:"hook_event_name"`
	Source               string    `json:"source"`
	Prompt               string    `json:"prompt"`
	ToolName             string    `json:"tool_name"`
	ToolInput            ToolInput `json:"tool_input"`
	Error                string    `json:"error"`
	StopHookActive       bool      `json:"stop_hook_active"`
	LastAssistantMessage string    `json:"last_assistant_message"`
	AgentID              string    `json:"agent_id"`
	AgentType            string    `json:"agent_type"`
}

// ToolInput is the input of a tool call; for Bash, the command.
type ToolInput struct {
	Command string `json:"command"`
}

// Errors of reading a payload.
var (
	ErrEmpty    = errors.New("empty hook payload")
	ErrTooLarge = errors.New("hook payload too large")
)

// ReadAll reads stdin up to MaxPayload bytes.
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read hook payload: %w", err)
	}
	if len(data) > MaxPayload {
		return nil, fmt.Errorf("%w (over %d MiB)", ErrTooLarge, MaxPayload>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrEmpty
	}
	return data, nil
}

// Decode parses a payload. tool_input may be any object; only its command
// is kept.
func Decode(data []byte) (Payload, error) {
	var p Payload
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("decode hook payload: %w", err)
	}
	return p, nil
}

// contextOutput is the JSON that adds context for the model, and a line
// for the person.
type contextOutput struct {
	SystemMessage      string `json:"systemMessage,omitempty"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// EncodeBlock returns the stdout of a Stop or SubagentStop hook that makes
// the agent go on, with reason as its instruction.
func EncodeBlock(reason string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason}); err != nil {
		return nil, fmt.Errorf("encode hook output: %w", err)
	}
	return buf.Bytes(), nil
}

// EncodeContext returns the stdout of a hook that adds text to the model's
// context for event.
func EncodeContext(event, text string) ([]byte, error) {
	return EncodeContextStatus(event, text, "")
}

// EncodeContextStatus is EncodeContext that also shows status, one quiet
// line, to the person (systemMessage); an empty status shows nothing.
func EncodeContextStatus(event, text, status string) ([]byte, error) {
	var out contextOutput
	out.SystemMessage = status
	out.HookSpecificOutput.HookEventName = event
	out.HookSpecificOutput.AdditionalContext = text
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("encode hook output: %w", err)
	}
	return buf.Bytes(), nil
}

// EncodeStatus returns the stdout of a hook that only shows status, one
// quiet line, to the person (systemMessage).
func EncodeStatus(status string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		SystemMessage string `json:"systemMessage"`
	}{status}); err != nil {
		return nil, fmt.Errorf("encode hook output: %w", err)
	}
	return buf.Bytes(), nil
}

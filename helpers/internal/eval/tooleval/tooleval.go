// Package tooleval measures the notes cairn brings before tool calls: it
// drives the real session hook (PreToolUse, through the Claude Code
// adapter) over scripted tool calls against a corpus and scores the notes
// injected against the expected keys (`cairn eval --tools`). It sits above
// the session layer, which is why it is not part of package eval.
package tooleval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// ToolCall is one scripted tool call of a session and the notes it
// should bring: a file tool with its path (relative to the project), or
// Bash with its command. Extra fields are ignored.
type ToolCall struct {
	Session  string   `json:"session"`
	Tool     string   `json:"tool"`
	Path     string   `json:"path,omitempty"`
	Command  string   `json:"command,omitempty"`
	Expected []string `json:"expected_keys"`
}

// ReadToolCalls parses a JSONL file of tool calls, in order; blank lines
// are skipped and the first bad line is an error naming its number.
func ReadToolCalls(data []byte) ([]ToolCall, error) {
	var calls []ToolCall
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var c ToolCall
		if err := json.Unmarshal(line, &c); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if c.Session == "" || c.Tool == "" {
			return nil, fmt.Errorf("line %d: a call needs a session and a tool", n)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read tool calls: %w", err)
	}
	return calls, nil
}

// ToolMetrics are the notes injected before tool calls against those
// expected, summed over the calls (micro-averaged): precision is the
// share of injected notes that were expected, recall the share of
// expected notes that were injected. Negatives are calls that expect
// nothing; NegativesWithNotes of them brought something.
type ToolMetrics struct {
	Calls              int     `json:"calls"`
	Injected           int     `json:"injected"`
	Expected           int     `json:"expected"`
	Precision          float64 `json:"precision"`
	Recall             float64 `json:"recall"`
	Negatives          int     `json:"negatives"`
	NegativesWithNotes int     `json:"negatives_with_notes"`
	// Chars is the characters (UTF-16 code units) injected over all calls.
	Chars int `json:"chars"`
	// Wrong lists the calls that brought a note they should not have, or
	// missed one ("call 3: missed KEY", "call 5: extra KEY").
	Wrong []string `json:"wrong,omitempty"`
}

// EvaluateTools replays calls, in order, through the hook that runs
// before a tool call (Claude Code's PreToolUse, in a scratch copy of the
// knowledge log corpus), and scores the notes each brought.
func EvaluateTools(corpus []byte, calls []ToolCall) (ToolMetrics, error) {
	var m ToolMetrics
	tmp, err := os.MkdirTemp("", "cairn-eval-tools-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "project")
	home := filepath.Join(tmp, "home") // no personal knowledge
	if err := os.Mkdir(dir, 0o755); err != nil {
		return m, err
	}
	store := knowledge.Open(dir)
	if err := store.Provision(); err != nil {
		return m, err
	}
	if err := os.WriteFile(store.LogPath(), corpus, 0o644); err != nil {
		return m, fmt.Errorf("write corpus: %w", err)
	}
	env := record.Env{
		Getenv: func(k string) string {
			switch k {
			case session.NoBackgroundEnv:
				return "1"
			case "HOME":
				return home
			}
			return ""
		},
		Dir: dir,
	}
	var last int64 // the time of the newest injection scored
	for _, c := range calls {
		input := map[string]string{}
		switch {
		case filepath.IsAbs(c.Path):
			input["file_path"] = c.Path
		case c.Path != "":
			input["file_path"] = filepath.Join(dir, filepath.FromSlash(c.Path))
		}
		if c.Command != "" {
			input["command"] = c.Command
		}
		payload, _ := json.Marshal(map[string]any{"session_id": c.Session, "cwd": dir, "hook_event_name": "PreToolUse",
			"tool_name": c.Tool, "tool_input": input})
		session.Hook(claude.Adapter{}, "PreToolUse", bytes.NewReader(payload), env)
		ins, err := recall.Injections(store)
		if err != nil {
			return m, err
		}
		var got []string
		// Injections lists the newest first.
		for _, in := range ins {
			if in.Time <= last {
				break
			}
			m.Chars += in.Used
			for _, s := range in.Entries {
				got = append(got, s.Key)
			}
		}
		if len(ins) > 0 {
			last = max(last, ins[0].Time)
		}
		m.Calls++
		m.Injected += len(got)
		m.Expected += len(c.Expected)
		if len(c.Expected) == 0 {
			m.Negatives++
			if len(got) > 0 {
				m.NegativesWithNotes++
			}
		}
		for _, k := range got {
			if slices.Contains(c.Expected, k) {
				m.Precision++
			} else {
				m.Wrong = append(m.Wrong, fmt.Sprintf("call %d: extra %s", m.Calls, k))
			}
		}
		for _, k := range c.Expected {
			if !slices.Contains(got, k) {
				m.Wrong = append(m.Wrong, fmt.Sprintf("call %d: missed %s", m.Calls, k))
			}
		}
	}
	hits := m.Precision
	m.Precision, m.Recall = 1, 1
	if m.Injected > 0 {
		m.Precision = round(hits / float64(m.Injected))
	}
	if m.Expected > 0 {
		m.Recall = round(hits / float64(m.Expected))
	}
	return m, nil
}

// String is the metrics on one line, for people.
func (m ToolMetrics) String() string {
	s := fmt.Sprintf("notes before tool calls: %d calls, %d notes injected, %d expected; precision %.3f, recall %.3f; %d of %d calls that expect nothing brought notes; %d characters injected",
		m.Calls, m.Injected, m.Expected, m.Precision, m.Recall, m.NegativesWithNotes, m.Negatives, m.Chars)
	for _, w := range m.Wrong {
		s += "\n  " + w
	}
	return s
}

// round keeps four decimals, as package eval's figures do.
func round(x float64) float64 { return math.Round(x*10000) / 10000 }

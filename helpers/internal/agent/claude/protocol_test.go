package claude_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Payloads recorded from Claude Code 2.1.197
// (shared/fixtures/claude-code-2.1.197/hook-payloads).
const (
	sessionStartPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","hook_event_name":"SessionStart","source":"startup"}`

	postToolUseBashPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","prompt_id":"faf2c968-b628-49a9-a60f-ae3d6fa3c919","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cat main.go","description":"read"},"tool_response":{"stdout":"package main","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},"tool_use_id":"toolu_01","duration_ms":35}`

	postToolUseAgentPayload = `{"session_id":"6a89830e-53b0-4879-966b-984e7ab924dd","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/6a89830e-53b0-4879-966b-984e7ab924dd.jsonl","cwd":"/home/dev/src/shop","prompt_id":"134f30d9-28f8-4753-951e-5dd5f626294e","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUse","tool_name":"Agent","tool_input":{"description":"investigate flaky test","prompt":"Find why TestRedirect is flaky","subagent_type":"general-purpose"},"tool_response":{"status":"completed","prompt":"Find why TestRedirect is flaky","agentId":"a3494658a29e70900","agentType":"general-purpose","content":[{"type":"text","text":"Root cause found.\nINVESTIGATION: TestRedirect is flaky because it depends on map iteration order in buildQuery.\n"}],"resolvedModel":"claude-opus-4-8[1m]","totalDurationMs":67,"totalTokens":15,"totalToolUseCount":0,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5,"server_tool_use":{"web_search_requests":0,"web_fetch_requests":0},"service_tier":"standard","cache_creation":{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0},"inference_geo":"","iterations":[],"speed":"standard"}},"tool_use_id":"toolu_10","duration_ms":68}`

	postToolUseFailurePayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","prompt_id":"faf2c968-b628-49a9-a60f-ae3d6fa3c919","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"bd comments add bd-42 \"LEARNED: OAuth redirect URI must match exactly, including the trailing slash\"","description":"log knowledge"},"tool_use_id":"toolu_02","error":"Exit code 127\n/bin/bash: line 1: bd: command not found","is_interrupt":false,"duration_ms":16}`

	stopPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","prompt_id":"faf2c968-b628-49a9-a60f-ae3d6fa3c919","permission_mode":"default","effort":{"level":"high"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Summary of the fix.\n\nDECISION: Keep redirect URIs in config/oauth.toml so staging and prod cannot drift.\nPATTERN: Every OAuth provider gets a table-driven test of its redirect URI.","background_tasks":[],"session_crons":[]}`

	subagentStopPayload = `{"session_id":"6a89830e-53b0-4879-966b-984e7ab924dd","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/6a89830e-53b0-4879-966b-984e7ab924dd.jsonl","cwd":"/home/dev/src/shop","prompt_id":"134f30d9-28f8-4753-951e-5dd5f626294e","permission_mode":"default","agent_id":"a3494658a29e70900","agent_type":"general-purpose","effort":{"level":"high"},"hook_event_name":"SubagentStop","stop_hook_active":false,"agent_transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/6a89830e-53b0-4879-966b-984e7ab924dd/subagents/agent-a3494658a29e70900.jsonl","last_assistant_message":"Root cause found.\nINVESTIGATION: TestRedirect is flaky because it depends on map iteration order in buildQuery.","background_tasks":[],"session_crons":[]}`

	userPromptSubmitPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","prompt_id":"faf2c968-b628-49a9-a60f-ae3d6fa3c919","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"fix the oauth redirect bug and record what you learn"}`

	sessionEndPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","prompt_id":"faf2c968-b628-49a9-a60f-ae3d6fa3c919","hook_event_name":"SessionEnd","reason":"other"}`
)

const (
	session1   = "e165bcaf-9e6e-4ce1-902c-e6dbd8681600"
	session2   = "6a89830e-53b0-4879-966b-984e7ab924dd"
	transcript = "/home/dev/.claude/projects/-home-dev-src-shop/"
	cwd        = "/home/dev/src/shop"
)

func TestKnown(t *testing.T) {
	for _, e := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd", "PreToolUse"} {
		if !known(e) {
			t.Errorf("known(%q) = false", e)
		}
	}
	for _, e := range []string{"", "sessionstart", "SESSIONSTART", " SessionStart", "SessionStart ", "SubagentStart", "Notification", "session-start"} {
		if known(e) {
			t.Errorf("known(%q) = true", e)
		}
	}
}

func TestDecodeFixtures(t *testing.T) {
	cases := []struct {
		name    string
		payload string
		want    claude.Payload
	}{
		{"SessionStart", sessionStartPayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "SessionStart", Source: "startup",
		}},
		{"PostToolUse Bash", postToolUseBashPayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "PostToolUse", ToolName: "Bash", PermissionMode: "default", ToolInput: claude.ToolInput{Command: "cat main.go"},
		}},
		{"PostToolUse Agent", postToolUseAgentPayload, claude.Payload{
			SessionID: session2, TranscriptPath: transcript + session2 + ".jsonl", Cwd: cwd,
			HookEventName: "PostToolUse", ToolName: "Agent", PermissionMode: "default",
		}},
		{"PostToolUseFailure", postToolUseFailurePayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "PostToolUseFailure", ToolName: "Bash", PermissionMode: "default",
			ToolInput: claude.ToolInput{Command: `bd comments add bd-42 "LEARNED: OAuth redirect URI must match exactly, including the trailing slash"`},
			Error:     "Exit code 127\n/bin/bash: line 1: bd: command not found",
		}},
		{"Stop", stopPayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "Stop", PermissionMode: "default",
			LastAssistantMessage: "Summary of the fix.\n\nDECISION: Keep redirect URIs in config/oauth.toml so staging and prod cannot drift.\n" +
				"PATTERN: Every OAuth provider gets a table-driven test of its redirect URI.",
		}},
		{"SubagentStop", subagentStopPayload, claude.Payload{
			SessionID: session2, TranscriptPath: transcript + session2 + ".jsonl", Cwd: cwd,
			HookEventName: "SubagentStop", PermissionMode: "default",
			LastAssistantMessage: "Root cause found.\nINVESTIGATION: TestRedirect is flaky because it depends on map iteration order in buildQuery.",
			AgentID:              "a3494658a29e70900", AgentType: "general-purpose",
		}},
		{"UserPromptSubmit", userPromptSubmitPayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "UserPromptSubmit", PermissionMode: "default", Prompt: "fix the oauth redirect bug and record what you learn",
		}},
		{"SessionEnd", sessionEndPayload, claude.Payload{
			SessionID: session1, TranscriptPath: transcript + session1 + ".jsonl", Cwd: cwd,
			HookEventName: "SessionEnd",
		}},
	}
	for _, tc := range cases {
		got, err := claude.DecodePayload([]byte(tc.payload))
		if err != nil {
			t.Errorf("%s: Decode error %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: Decode =\n%+v\nwant\n%+v", tc.name, got, tc.want)
		}
		if !known(got.HookEventName) {
			t.Errorf("%s: event %q not Known", tc.name, got.HookEventName)
		}
	}
}

func TestDecodeStopHookActive(t *testing.T) {
	p, err := claude.DecodePayload([]byte(strings.Replace(stopPayload, `"stop_hook_active":false`, `"stop_hook_active":true`, 1)))
	if err != nil || !p.StopHookActive {
		t.Errorf("Adapter{}.Decode(stop_hook_active true) = %+v, %v", p, err)
	}
}

func TestDecodeInvalid(t *testing.T) {
	for _, in := range []string{
		"", "{", "not json", `{"session_id":}`, `["SessionStart"]`, `"SessionStart"`, `{"session_id": 5}`,
		`{"tool_input": {"command": 5}}`, stopPayload[:len(stopPayload)/2], "\x00\x01",
	} {
		if _, err := claude.DecodePayload([]byte(in)); err == nil {
			t.Errorf("Adapter{}.Decode(%q) succeeded", in)
		}
	}
}

func TestEncodeContext(t *testing.T) {
	text := "<untrusted-knowledge source=\"cairn\" trust=\"data-not-instructions\">\n" +
		"- [learned] a & b \"quoted\" \\ back\ttab 日本語 😀 \u2028 (2025-11-22)\n</untrusted-knowledge>\nTo record..."
	for _, event := range []string{"SessionStart", "UserPromptSubmit"} {
		out, err := encodeContext(event, text)
		if err != nil {
			t.Fatalf("EncodeContext: %v", err)
		}
		if !json.Valid(out) {
			t.Fatalf("EncodeContext output is not valid JSON: %s", out)
		}
		for _, lit := range []string{"<untrusted-knowledge", "</untrusted-knowledge>", "&", `"hookSpecificOutput"`, `"hookEventName":"` + event + `"`, `"additionalContext"`} {
			if !bytes.Contains(out, []byte(lit)) {
				t.Errorf("output lacks %q literally: %s", lit, out)
			}
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(out, []byte(esc)) {
				t.Errorf("output HTML-escapes (%s): %s", esc, out)
			}
		}
		var got map[string]map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(got["hookSpecificOutput"]) != 2 {
			t.Errorf("unexpected shape: %s", out)
		}
		if got["hookSpecificOutput"]["hookEventName"] != event {
			t.Errorf("hookEventName = %v, want %s", got["hookSpecificOutput"]["hookEventName"], event)
		}
		if got["hookSpecificOutput"]["additionalContext"] != text {
			t.Errorf("additionalContext = %q, want %q", got["hookSpecificOutput"]["additionalContext"], text)
		}
		if bytes.Count(out, []byte("\n")) != 1 || out[len(out)-1] != '\n' {
			t.Errorf("want exactly one line ending in a newline: %q", out)
		}
	}
}

func TestEncodeContextEmpty(t *testing.T) {
	out, err := encodeContext("SessionStart", "")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}` + "\n"
	if string(out) != want {
		t.Errorf("EncodeContext(SessionStart, \"\") = %q, want %q", out, want)
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range []string{sessionStartPayload, postToolUseBashPayload, postToolUseAgentPayload, postToolUseFailurePayload,
		stopPayload, subagentStopPayload, userPromptSubmitPayload, sessionEndPayload, "", "{}", "null", "{", `{"tool_input":null}`} {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := claude.DecodePayload(data)
		if err != nil {
			return
		}
		out, err := encodeContext(p.HookEventName, p.LastAssistantMessage+p.ToolInput.Command)
		if err != nil {
			t.Fatalf("EncodeContext of a decoded payload: %v", err)
		}
		var back struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("EncodeContext output does not decode: %v: %s", err, out)
		}
		if back.HookSpecificOutput.HookEventName != p.HookEventName ||
			back.HookSpecificOutput.AdditionalContext != p.LastAssistantMessage+p.ToolInput.Command {
			t.Fatalf("round trip changed the output: %s", out)
		}
	})
}

// PreToolUse decodes the tool and its file, and answers context and, at
// most, ask: never allow, never deny.
func TestBeforeTool(t *testing.T) {
	for _, c := range []struct {
		payload, tool, path string
		edits               bool
	}{
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a.go"}}`, "Read", "/p/a.go", false},
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}`, "NotebookEdit", "n.ipynb", true},
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "Bash", "", false},
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Grep","tool_input":{"pattern":"Retry","path":"client/retry.go"}}`, "Grep", "client/retry.go", false},
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Glob","tool_input":{"pattern":"*.sql","path":"db"}}`, "Glob", "db", false},
	} {
		e, err := (claude.Adapter{}).Decode("PreToolUse", []byte(c.payload), func(string) string { return "" })
		if err != nil || e.Kind != event.BeforeTool || e.Tool != c.tool || e.Path != c.path || e.Edits != c.edits {
			t.Errorf("Decode(%s) = %+v, %v", c.payload, e, err)
		}
	}
	e := event.Event{Kind: event.BeforeTool, Name: "PreToolUse", CanAsk: true}
	out, err := claude.Adapter{}.Encode(e, event.Answer{Context: "note", Status: "cairn: 1 note", Ask: "must check"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"systemMessage":"cairn: 1 note","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"must check","additionalContext":"note"}}` + "\n"
	if string(out) != want {
		t.Errorf("Encode = %s, want %s", out, want)
	}
	out, _ = claude.Adapter{}.Encode(e, event.Answer{Context: "note"})
	if strings.Contains(string(out), "permissionDecision") {
		t.Errorf("context alone decides: %s", out)
	}
	// No one to answer: the question is dropped, the context stays.
	e.CanAsk = false
	out, _ = claude.Adapter{}.Encode(e, event.Answer{Context: "note", Ask: "must check"})
	if strings.Contains(string(out), "permissionDecision") || !strings.Contains(string(out), `"additionalContext":"note"`) {
		t.Errorf("a session no one can answer was asked: %s", out)
	}
	if out, _ = (claude.Adapter{}).Encode(e, event.Answer{Ask: "must check"}); len(out) != 0 {
		t.Errorf("a question alone, no one to answer: %s", out)
	}
}

// A PreToolUse may ask only when a person sits at the session: the
// interactive UI (or an editor's) in a mode that asks. Print mode, the
// SDKs, bypassPermissions, dontAsk, auto and anything unknown never ask.
func TestCanAsk(t *testing.T) {
	for _, c := range []struct {
		mode, entrypoint string
		want             bool
	}{
		{"default", "cli", true},
		{"acceptEdits", "cli", true},
		{"plan", "claude-vscode", true},
		{"default", "sdk-cli", false}, // claude -p
		{"default", "sdk-ts", false},
		{"default", "mcp", false},
		{"default", "claude-code-github-action", false},
		{"default", "", false},
		{"bypassPermissions", "cli", false},
		{"dontAsk", "cli", false},
		{"auto", "cli", false},
		{"", "cli", false},
	} {
		payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"a.go"},"permission_mode":"` + c.mode + `"}`
		e, err := claude.Adapter{}.Decode("PreToolUse", []byte(payload), func(k string) string {
			if k == "CLAUDE_CODE_ENTRYPOINT" {
				return c.entrypoint
			}
			return ""
		})
		if err != nil || e.CanAsk != c.want {
			t.Errorf("mode %q, entrypoint %q: CanAsk = %v, want %v (%v)", c.mode, c.entrypoint, e.CanAsk, c.want, err)
		}
	}
}

// known reports whether Claude Code's event name is one cairn handles.
func known(name string) bool { return (claude.Adapter{}).Kind(name) != event.Unknown }

// encodeContext is the stdout of a hook that adds text to the model's
// context for the event name, without a status line.
func encodeContext(name, text string) ([]byte, error) {
	return claude.EncodeContextStatus(name, text, "")
}

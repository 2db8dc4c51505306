// Package claudetest lets Go tests drive the real Claude Code CLI offline.
//
// A test starts a FakeAPI (a scripted fake of the Anthropic Messages API on
// loopback), points the CLI at it with Run, and then inspects what the CLI
// did (files, hook side effects, transcripts) and what it sent to the
// "model" (FakeAPI.Requests). StartInteractive runs the interactive UI
// instead, in tmux, and types into it as a person would. FindCLI locates the
// pinned CLI binary and skips the test when it is not installed (or fails it
// when CI=true).
package claudetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Block is one scripted content block of a fake model reply: either text
// (Type "text") or a tool call (Type "tool_use").
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is the reply text of a text block.
	Text string
	// ID is the tool_use id, e.g. "toolu_01"; the CLI echoes it back in the
	// matching tool_result.
	ID string
	// Name is the tool name of a tool_use block, e.g. "Bash" or "Agent".
	Name string
	// Input is the tool input; it is marshalled to JSON (nil means {}).
	Input any
}

// Text returns a scripted text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// ToolUse returns a scripted tool_use block. input is marshalled to JSON,
// e.g. map[string]any{"command": "echo hello > out.txt"} for Bash.
func ToolUse(id, name string, input any) Block {
	return Block{Type: "tool_use", ID: id, Name: name, Input: input}
}

// DoneText is the text the fake answers with once the scripted turns are
// exhausted.
const DoneText = "done"

// SideReplyText is the text the fake answers side requests with (requests
// that carry no tools, such as title generation).
const SideReplyText = "side reply"

// Request is one POST /v1/messages request received by the fake.
type Request struct {
	// Side is true for requests without tools (side calls such as title
	// generation); unless the responder answers them they get SideReplyText.
	// Side requests consume no scripted turn.
	Side bool
	// Responded is true when the responder set with FakeAPI.Respond chose
	// the answer; such a request consumes no scripted turn.
	Responded bool
	// Turn is the index of the scripted turn answered, -1 for side requests
	// and requests the responder answered, len(turns) or more once the
	// script was exhausted (answered DoneText).
	Turn int
	// Path is the request path including the query, e.g. "/v1/messages?beta=true".
	Path string
	// Body is the raw JSON body.
	Body []byte
}

// Text flattens all text the request sends to the model, joined by
// newlines: the top-level system prompt blocks and, for messages of every
// role, content strings, text blocks, tool_result contents and tool_use
// inputs (as JSON). Claude Code 2.1.197 sends hook context such as
// "SessionStart hook additional context: ..." as a message with role
// "system", so it is included.
func (r Request) Text() string {
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return string(r.Body)
	}
	var parts []string
	parts = appendContentText(parts, req.System)
	for _, m := range req.Messages {
		parts = appendContentText(parts, m.Content)
	}
	return strings.Join(parts, "\n")
}

// appendContentText appends the text found in a Messages API content value:
// a string, or a list of blocks (text, tool_result with nested content,
// tool_use with input).
func appendContentText(parts []string, raw json.RawMessage) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return parts
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return append(parts, s)
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
		Input   json.RawMessage `json:"input"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return append(parts, string(raw))
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = appendContentText(parts, b.Content)
		case "tool_use":
			parts = append(parts, string(b.Input))
		}
	}
	return parts
}

// FakeAPI is a scripted fake of the Anthropic Messages API served on
// 127.0.0.1. It is safe for concurrent requests. Its Script's Respond sets
// a responder for POST /v1/messages requests, e.g. answering a headless
// side call (a distillation prompt a hook sends with "claude -p") by what
// it contains:
//
//	api.Respond(func(r claudetest.Request) ([]claudetest.Block, bool) {
//		if strings.Contains(r.Text(), "distill") {
//			return []claudetest.Block{claudetest.Text(`{"decisions": []}`)}, true
//		}
//		return nil, false
//	})
//
// An answer that is not valid (no blocks, a tool_use without id or name)
// fails the test and is answered with HTTP 500.
type FakeAPI struct {
	srv *httptest.Server
	t   testing.TB // for errors in the responder's answers
	*clitest.Script[Request, Block]
}

// StartFakeAPI starts a fake Messages API that answers main requests (those
// with tools) with the scripted turns in order, then with DoneText, and side
// requests with SideReplyText; a responder set with Respond comes first. The
// server is closed when the test ends.
func StartFakeAPI(t testing.TB, turns [][]Block) *FakeAPI {
	t.Helper()
	script, err := clitest.NewScript[Request](turns, checkBlocks, []Block{Text(DoneText)})
	if err != nil {
		t.Fatalf("claudetest: %v", err)
	}
	f := &FakeAPI{t: t, Script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.srv.Close)
	return f
}

// checkBlocks reports what is wrong with the blocks of one reply, if
// anything: a reply needs at least one block, tool_use blocks an id, a name
// and an input that marshals to JSON.
func checkBlocks(blocks []Block) error {
	if len(blocks) == 0 {
		return fmt.Errorf("no blocks")
	}
	for j, b := range blocks {
		switch b.Type {
		case "text":
		case "tool_use":
			if b.ID == "" || b.Name == "" {
				return fmt.Errorf("block %d: tool_use needs an id and a name", j)
			}
			if _, err := json.Marshal(b.Input); err != nil {
				return fmt.Errorf("block %d: tool input: %v", j, err)
			}
		default:
			return fmt.Errorf("block %d: unknown block type %q", j, b.Type)
		}
	}
	return nil
}

// URL returns the base URL of the fake, e.g. "http://127.0.0.1:41234", for
// ANTHROPIC_BASE_URL.
func (f *FakeAPI) URL() string { return f.srv.URL }

// MainRequests returns the requests that carried tools, in arrival order,
// whether a scripted turn or the responder answered them.
func (f *FakeAPI) MainRequests() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if !r.Side {
			out = append(out, r)
		}
	}
	return out
}

// MainRequestTexts returns, for each main request in arrival order, all of
// its text flattened by Request.Text.
func (f *FakeAPI) MainRequestTexts() []string {
	var out []string
	for _, r := range f.MainRequests() {
		out = append(out, r.Text())
	}
	return out
}

// MainRequestsContain reports whether any main request sent s to the model.
func (f *FakeAPI) MainRequestsContain(s string) bool {
	for _, txt := range f.MainRequestTexts() {
		if strings.Contains(txt, s) {
			return true
		}
	}
	return false
}

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.Hit(r.Method + " " + r.URL.RequestURI())

	switch {
	case r.Method == http.MethodHead:
		w.WriteHeader(http.StatusOK)
		return
	case r.Method != http.MethodPost:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		return
	case strings.Contains(r.URL.Path, "count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens":10}`)
		return
	}

	var req struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	side := len(req.Tools) == 0
	rec := Request{Side: side, Turn: -1, Path: r.URL.RequestURI(), Body: body}
	blocks, n, bad := f.Answer(rec, side, func(r *Request, turn int, responded bool) {
		r.Turn, r.Responded = turn, responded
	})
	msgID := fmt.Sprintf("msg_fake_%03d", n)
	if bad != nil {
		f.t.Errorf("claudetest: the responder's answer to %s: %v", rec.Path, bad)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"type":"error","error":{"type":"api_error","message":"claudetest: invalid responder answer"}}`)
		return
	}
	if blocks == nil {
		blocks = []Block{Text(SideReplyText)}
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_"+msgID)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	_ = writeSSE(w, fl, msgID, model, blocks)
}

// stopReason is "tool_use" when the blocks contain a tool call, else "end_turn".
func stopReason(blocks []Block) string {
	for _, b := range blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

// writeSSE writes a complete streamed Messages API reply with the given
// blocks as server-sent events, flushing after each event when fl is not nil.
func writeSSE(w io.Writer, fl http.Flusher, msgID, model string, blocks []Block) error {
	ev := func(name string, data any) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
	type m = map[string]any
	err := ev("message_start", m{"type": "message_start", "message": m{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": m{"input_tokens": 10, "output_tokens": 1},
	}})
	if err != nil {
		return err
	}
	for i, b := range blocks {
		var start, delta m
		if b.Type == "tool_use" {
			input, err := json.Marshal(b.Input)
			if err != nil {
				return err
			}
			if string(input) == "null" {
				input = []byte("{}")
			}
			start = m{"type": "tool_use", "id": b.ID, "name": b.Name, "input": m{}}
			delta = m{"type": "input_json_delta", "partial_json": string(input)}
		} else {
			start = m{"type": "text", "text": ""}
			delta = m{"type": "text_delta", "text": b.Text}
		}
		if err := ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": start}); err != nil {
			return err
		}
		if err := ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": delta}); err != nil {
			return err
		}
		if err := ev("content_block_stop", m{"type": "content_block_stop", "index": i}); err != nil {
			return err
		}
	}
	err = ev("message_delta", m{"type": "message_delta",
		"delta": m{"stop_reason": stopReason(blocks), "stop_sequence": nil},
		"usage": m{"output_tokens": 5}})
	if err != nil {
		return err
	}
	return ev("message_stop", m{"type": "message_stop"})
}

// Env is an environment for a process that runs the CLI against the fake
// (cairn's worker, say, which starts `claude -p`): this process's
// environment without the variables that could reach a real account or an
// outer session, kept offline, with the fake's URL and a test key, and
// extra last (later entries win).
func (f *FakeAPI) Env(extra ...string) []string {
	return childEnv(os.Environ(), append([]string{"ANTHROPIC_API_KEY=" + InteractiveAPIKey, "ANTHROPIC_BASE_URL=" + f.URL()}, extra...))
}

// Package opencodetest lets Go tests drive the real OpenCode CLI offline.
//
// A test starts a FakeAPI (a scripted fake of an OpenAI-compatible chat
// completions API on loopback, streaming included), runs `opencode run`
// against it with Run (OpenCode configured, in a fresh HOME, with a custom
// provider that uses its built-in @ai-sdk/openai-compatible package), and
// then inspects what OpenCode did and what it sent to the "model"
// (FakeAPI.Requests). FindCLI locates the pinned CLI, installing it from
// npm into the user's cache when it can, and skips the test when it cannot
// (or fails it when CI=true).
package opencodetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// Block is one scripted part of a fake model reply: text, or a call of
// one of OpenCode's tools.
type Block struct {
	// Text is the reply text of a text block.
	Text string
	// ID, Name and Input make a tool call: OpenCode runs the tool Name
	// (e.g. "bash") with Input (marshalled to JSON) and echoes ID back in
	// the tool message of its next request.
	ID    string
	Name  string
	Input any
}

// Text returns a scripted text block.
func Text(s string) Block { return Block{Text: s} }

// ToolCall returns a scripted tool call, e.g.
// ToolCall("call_1", "bash", map[string]any{"command": "ls", "description": "list"}).
func ToolCall(id, name string, input any) Block { return Block{ID: id, Name: name, Input: input} }

// Bash returns a scripted call of OpenCode's bash tool running command.
func Bash(id, command string) Block {
	return ToolCall(id, "bash", map[string]any{"command": command, "description": "Run a command"})
}

// DoneText is what the fake answers once the scripted turns are exhausted.
const DoneText = "done"

// SideReplyText is what the fake answers side requests with (requests
// without tools, such as OpenCode's title generation).
const SideReplyText = "Side reply"

// Request is one POST /v1/chat/completions request received by the fake.
type Request struct {
	// Side is true for a request without tools (a title, a compaction);
	// it consumes no scripted turn.
	Side bool
	// Turn is the scripted turn answered: -1 for a side request,
	// len(turns) or more once the script was exhausted.
	Turn int
	// Body is the raw JSON body.
	Body []byte
}

// message is one chat message of a request.
type message struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (r Request) messages() []message {
	var req struct {
		Messages []message `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	return req.Messages
}

// System is the text of the request's system messages, joined by
// newlines: OpenCode's own prompt and what plugins added to it.
func (r Request) System() string {
	var parts []string
	for _, m := range r.messages() {
		if m.Role == "system" {
			parts = appendContent(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Text flattens all text the request sends to the model, joined by
// newlines: every message's content, tool results and tool call arguments.
func (r Request) Text() string {
	var parts []string
	for _, m := range r.messages() {
		parts = appendContent(parts, m.Content)
		for _, c := range m.ToolCalls {
			parts = append(parts, c.Function.Arguments)
		}
	}
	return strings.Join(parts, "\n")
}

// appendContent appends the text of a content value: a string, or a list
// of parts of which the text ones count.
func appendContent(parts []string, raw json.RawMessage) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return parts
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return append(parts, s)
	}
	var list []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &list) != nil {
		return append(parts, string(raw))
	}
	for _, p := range list {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return parts
}

// FakeAPI is a scripted fake of an OpenAI-compatible chat completions API
// served on 127.0.0.1. It is safe for concurrent requests.
type FakeAPI struct {
	srv *httptest.Server
	t   testing.TB // for errors in a responder's answers
	*clitest.Script[Request, Block]
}

// StartFakeAPI starts a fake that answers main requests (those with
// tools) with the scripted turns in order, then with DoneText, and side
// requests with SideReplyText. The server is closed when the test ends.
func StartFakeAPI(t testing.TB, turns [][]Block) *FakeAPI {
	t.Helper()
	script, err := clitest.NewScript[Request](turns, checkBlocks, []Block{Text(DoneText)})
	if err != nil {
		t.Fatalf("opencodetest: %v", err)
	}
	f := &FakeAPI{t: t, Script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.srv.Close)
	return f
}

// checkBlocks reports what is wrong with one reply's blocks: a reply
// needs a block, a tool call an id and a name and an input that marshals.
func checkBlocks(blocks []Block) error {
	if len(blocks) == 0 {
		return fmt.Errorf("no blocks")
	}
	for j, b := range blocks {
		if b.ID == "" && b.Name == "" {
			continue
		}
		if b.ID == "" || b.Name == "" {
			return fmt.Errorf("block %d: a tool call needs an id and a name", j)
		}
		if _, err := json.Marshal(b.Input); err != nil {
			return fmt.Errorf("block %d: tool input: %v", j, err)
		}
	}
	return nil
}

// URL is the fake's base URL for an OpenAI-compatible provider, e.g.
// "http://127.0.0.1:41234/v1".
func (f *FakeAPI) URL() string { return f.srv.URL + "/v1" }

// MainRequests returns the requests that carried tools, in arrival order.
func (f *FakeAPI) MainRequests() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if !r.Side {
			out = append(out, r)
		}
	}
	return out
}

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.Hit(r.Method + " " + r.URL.RequestURI())
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"opencodetest: not found","type":"invalid_request_error"}}`)
		return
	}
	var req struct {
		Model  string            `json:"model"`
		Tools  []json.RawMessage `json:"tools"`
		Stream bool              `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	rec := Request{Side: len(req.Tools) == 0, Turn: -1, Body: body}

	blocks, n, bad := f.Answer(rec, rec.Side, func(r *Request, turn int, _ bool) { r.Turn = turn })
	id := fmt.Sprintf("chatcmpl-fake-%03d", n)
	if bad != nil {
		f.t.Errorf("opencodetest: the responder's answer: %v", bad)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"error":{"message":"opencodetest: invalid responder answer","type":"server_error"}}`)
		return
	}
	if blocks == nil {
		blocks = []Block{Text(SideReplyText)}
	}
	model := req.Model
	if model == "" {
		model = "fake"
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(completion(id, model, blocks))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	_ = writeSSE(w, fl, id, model, blocks)
}

type obj = map[string]any

// finishReason is "tool_calls" when the blocks call a tool, else "stop".
func finishReason(blocks []Block) string {
	for _, b := range blocks {
		if b.Name != "" {
			return "tool_calls"
		}
	}
	return "stop"
}

// usage is the token count every answer reports.
var usage = obj{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}

// text joins the text blocks.
func text(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Name == "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// arguments is a tool call's input as JSON ({} for none).
func arguments(b Block) string {
	in, _ := json.Marshal(b.Input) // checked by checkBlocks
	if string(in) == "null" {
		return "{}"
	}
	return string(in)
}

// completion is a whole, unstreamed answer.
func completion(id, model string, blocks []Block) obj {
	msg := obj{"role": "assistant", "content": text(blocks)}
	var calls []obj
	for _, b := range blocks {
		if b.Name != "" {
			calls = append(calls, obj{"id": b.ID, "type": "function", "function": obj{"name": b.Name, "arguments": arguments(b)}})
		}
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	return obj{"id": id, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []obj{{"index": 0, "message": msg, "finish_reason": finishReason(blocks)}}, "usage": usage}
}

// writeSSE streams an answer as chat.completion.chunk events, as the
// OpenAI API does: the text in pieces, each tool call's name and then its
// arguments in two pieces, the finish reason, the usage (OpenCode asks
// for it), and [DONE]. It flushes after every event when fl is not nil.
func writeSSE(w io.Writer, fl http.Flusher, id, model string, blocks []Block) error {
	created := time.Now().Unix()
	ev := func(choices []obj, extra obj) error {
		c := obj{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		for k, v := range extra {
			c[k] = v
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
	delta := func(d obj) error {
		return ev([]obj{{"index": 0, "delta": d, "finish_reason": nil}}, nil)
	}
	if err := delta(obj{"role": "assistant", "content": ""}); err != nil {
		return err
	}
	if t := text(blocks); t != "" {
		for _, piece := range halves(t) {
			if err := delta(obj{"content": piece}); err != nil {
				return err
			}
		}
	}
	index := 0
	for _, b := range blocks {
		if b.Name == "" {
			continue
		}
		args := halves(arguments(b))
		first := obj{"index": index, "id": b.ID, "type": "function", "function": obj{"name": b.Name, "arguments": ""}}
		if err := delta(obj{"tool_calls": []obj{first}}); err != nil {
			return err
		}
		for _, piece := range args {
			if err := delta(obj{"tool_calls": []obj{{"index": index, "function": obj{"arguments": piece}}}}); err != nil {
				return err
			}
		}
		index++
	}
	if err := ev([]obj{{"index": 0, "delta": obj{}, "finish_reason": finishReason(blocks)}}, nil); err != nil {
		return err
	}
	if err := ev([]obj{}, obj{"usage": usage}); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
		return err
	}
	if fl != nil {
		fl.Flush()
	}
	return nil
}

// halves splits s in two at a rune boundary (one piece when it is short),
// so that every answer really arrives in pieces.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}

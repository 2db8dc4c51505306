// Package codextest lets Go tests drive the real OpenAI Codex CLI offline.
//
// A test starts a FakeAPI (a scripted fake of the OpenAI Responses API on
// loopback, streaming as the real one does), points the CLI at it with Run
// (`codex exec`) or StartInteractive (the interactive UI, in tmux), and then
// inspects what the CLI did (files, hook side effects, rollouts) and what it
// sent to the "model" (FakeAPI.Requests). The CLI is configured only
// through a config.toml in a temporary CODEX_HOME: a custom model provider
// at the fake, no login, no update check, no analytics, no plugin sync, no
// background daemon, and approvals and the sandbox set so a shell command
// runs without asking. FindCLI locates the pinned CLI binary, installing it
// from npm into the user's cache when it can, and skips the test when it
// cannot (or fails it when CI=true).
package codextest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// ShellTool is the function Codex 0.169 offers the model to run a shell
// command (its unified exec tool); its arguments are {"cmd": COMMAND}.
const ShellTool = "exec_command"

// Item is one scripted output item of a fake model response: an assistant
// message (Type "message") or a function call (Type "function_call").
type Item struct {
	// Type is "message" or "function_call".
	Type string
	// Text is the text of a message.
	Text string
	// CallID is the function call's id; the CLI echoes it back in the
	// matching function_call_output.
	CallID string
	// Name is the function's name, e.g. ShellTool.
	Name string
	// Arguments are the call's arguments; they are marshalled to JSON
	// (nil means {}).
	Arguments any
}

// Text returns a scripted assistant message.
func Text(s string) Item { return Item{Type: "message", Text: s} }

// Call returns a scripted function call.
func Call(callID, name string, args any) Item {
	return Item{Type: "function_call", CallID: callID, Name: name, Arguments: args}
}

// Shell returns a scripted call of the shell tool running command.
func Shell(callID, command string) Item {
	return Call(callID, ShellTool, map[string]any{"cmd": command})
}

// DoneText is the text the fake answers with once the scripted turns are
// exhausted.
const DoneText = "done"

// SideReplyText is the text the fake answers side requests with (requests
// that carry no tools, such as a title or a summary).
const SideReplyText = "side reply"

// Request is one POST /v1/responses request received by the fake.
type Request struct {
	// Side is true for requests without tools; unless the responder
	// answers them they get SideReplyText and consume no scripted turn.
	Side bool
	// Responded is true when the responder set with Respond chose the
	// answer; such a request consumes no scripted turn.
	Responded bool
	// Turn is the index of the scripted turn answered, -1 for side
	// requests and requests the responder answered, len(turns) or more
	// once the script was exhausted (answered DoneText).
	Turn int
	// Path is the request path including the query.
	Path string
	// Header holds the request's headers.
	Header http.Header
	// Body is the raw JSON body.
	Body []byte
}

// Text flattens all text the request sends to the model, joined by
// newlines: the instructions, and for every input item the text of a
// message of any role (input_text, output_text), a function call's
// arguments and a function call's output. Codex 0.169 sends hook context
// (SessionStart, UserPromptSubmit) as a message with role "developer".
func (r Request) Text() string {
	var req struct {
		Instructions string            `json:"instructions"`
		Input        []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return string(r.Body)
	}
	var parts []string
	if req.Instructions != "" {
		parts = append(parts, req.Instructions)
	}
	for _, raw := range req.Input {
		var it struct {
			Type      string          `json:"type"`
			Content   json.RawMessage `json:"content"`
			Arguments string          `json:"arguments"`
			Output    json.RawMessage `json:"output"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch it.Type {
		case "message":
			parts = appendContent(parts, it.Content)
		case "function_call":
			parts = append(parts, it.Arguments)
		case "function_call_output":
			parts = appendContent(parts, it.Output)
		}
	}
	return strings.Join(parts, "\n")
}

// appendContent appends the text of a Responses content value: a string,
// or a list of parts with text.
func appendContent(parts []string, raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return append(parts, s)
	}
	var items []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return parts
	}
	for _, it := range items {
		if it.Text != "" {
			parts = append(parts, it.Text)
		}
	}
	return parts
}

// FakeAPI is a scripted fake of the OpenAI Responses API served on
// 127.0.0.1. It is safe for concurrent requests. Its Script's Respond sets
// a responder for POST /v1/responses requests.
type FakeAPI struct {
	srv *httptest.Server
	t   testing.TB
	*clitest.Script[Request, Item]
}

// StartFakeAPI starts a fake Responses API that answers main requests
// (those with tools) with the scripted turns in order, then with DoneText,
// and side requests with SideReplyText; a responder set with Respond comes
// first. The server is closed when the test ends.
func StartFakeAPI(t testing.TB, turns [][]Item) *FakeAPI {
	t.Helper()
	script, err := clitest.NewScript[Request](turns, checkItems, []Item{Text(DoneText)})
	if err != nil {
		t.Fatalf("codextest: %v", err)
	}
	f := &FakeAPI{t: t, Script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.srv.Close)
	return f
}

// checkItems reports what is wrong with the items of one response.
func checkItems(items []Item) error {
	if len(items) == 0 {
		return fmt.Errorf("no items")
	}
	for j, it := range items {
		switch it.Type {
		case "message":
		case "function_call":
			if it.CallID == "" || it.Name == "" {
				return fmt.Errorf("item %d: a function call needs a call id and a name", j)
			}
			if _, err := json.Marshal(it.Arguments); err != nil {
				return fmt.Errorf("item %d: arguments: %v", j, err)
			}
		default:
			return fmt.Errorf("item %d: unknown item type %q", j, it.Type)
		}
	}
	return nil
}

// URL returns the base URL of the fake's API, e.g.
// "http://127.0.0.1:41234/v1", for a model provider's base_url.
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

// MainRequestTexts returns each main request's text (Request.Text).
func (f *FakeAPI) MainRequestTexts() []string {
	var out []string
	for _, r := range f.MainRequests() {
		out = append(out, r.Text())
	}
	return out
}

// ProxyEnv is the environment that makes the fake the CLI's HTTP proxy
// for everything but loopback: a request the CLI makes elsewhere (Codex
// 0.169's interactive UI fetches a start-up tip from GitHub, whatever its
// config says) reaches the fake, which refuses it and records it in Hits,
// instead of the network.
func (f *FakeAPI) ProxyEnv() []string {
	var env []string
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+f.srv.URL, strings.ToLower(k)+"="+f.srv.URL)
	}
	return append(env, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
}

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	target := r.URL.RequestURI()
	if r.Method == http.MethodConnect {
		target = r.Host
	} else if r.URL.IsAbs() {
		target = r.URL.String()
	}
	f.Hit(r.Method + " " + target)
	switch {
	case r.Method == http.MethodConnect || r.URL.IsAbs():
		// The CLI asked the fake, as its proxy, for somewhere else: the
		// hit is recorded (as "CONNECT host:port") and refused.
		http.Error(w, "codextest: no network beyond the fake", http.StatusForbidden)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[]}`)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/responses":
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	rec := Request{Side: len(req.Tools) == 0, Turn: -1, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body}
	items, n, bad := f.Answer(rec, rec.Side, func(r *Request, turn int, responded bool) {
		r.Turn, r.Responded = turn, responded
	})
	id := fmt.Sprintf("resp_fake_%03d", n)
	if bad != nil {
		f.t.Errorf("codextest: the responder's answer: %v", bad)
		http.Error(w, `{"error":{"message":"codextest: invalid responder answer"}}`, http.StatusInternalServerError)
		return
	}
	if items == nil {
		items = []Item{Text(SideReplyText)}
	}
	model := req.Model
	if model == "" {
		model = "codextest-model"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("x-request-id", "req_"+id)
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	_ = WriteSSE(w, fl, id, model, items)
}

// WriteSSE writes a complete streamed Responses API answer with the given
// items as server-sent events, flushing after each when fl is not nil:
// response.created; per item response.output_item.added, for a message
// its text as response.output_text.delta events, and
// response.output_item.done; then response.completed with the usage.
func WriteSSE(w io.Writer, fl http.Flusher, id, model string, items []Item) error {
	type m = map[string]any
	ev := func(data m) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
	seq := 0
	next := func(data m) m { data["sequence_number"] = seq; seq++; return data }
	resp := func(status string, output []any) m {
		r := m{"id": id, "object": "response", "created_at": 1700000000, "status": status, "model": model, "output": output}
		if status == "completed" {
			r["usage"] = m{"input_tokens": 10, "input_tokens_details": m{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": m{"reasoning_tokens": 0}, "total_tokens": 15}
		}
		return r
	}
	if err := ev(next(m{"type": "response.created", "response": resp("in_progress", []any{})})); err != nil {
		return err
	}
	var output []any
	for i, it := range items {
		var added, done m
		if it.Type == "function_call" {
			args, err := json.Marshal(it.Arguments)
			if err != nil {
				return err
			}
			if string(args) == "null" {
				args = []byte("{}")
			}
			fid := fmt.Sprintf("fc_%s_%d", id, i)
			added = m{"type": "function_call", "id": fid, "call_id": it.CallID, "name": it.Name, "arguments": "", "status": "in_progress"}
			done = m{"type": "function_call", "id": fid, "call_id": it.CallID, "name": it.Name, "arguments": string(args), "status": "completed"}
		} else {
			mid := fmt.Sprintf("msg_%s_%d", id, i)
			added = m{"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []any{}}
			done = m{"type": "message", "id": mid, "role": "assistant", "status": "completed",
				"content": []any{m{"type": "output_text", "text": it.Text, "annotations": []any{}}}}
		}
		if err := ev(next(m{"type": "response.output_item.added", "output_index": i, "item": added})); err != nil {
			return err
		}
		if it.Type == "message" {
			for _, chunk := range chunks(it.Text) {
				if err := ev(next(m{"type": "response.output_text.delta", "item_id": added["id"], "output_index": i, "content_index": 0, "delta": chunk})); err != nil {
					return err
				}
			}
		}
		if err := ev(next(m{"type": "response.output_item.done", "output_index": i, "item": done})); err != nil {
			return err
		}
		output = append(output, done)
	}
	return ev(next(m{"type": "response.completed", "response": resp("completed", output)}))
}

// chunks splits text into a few streamed deltas, at line ends.
func chunks(text string) []string {
	var out []string
	for _, c := range strings.SplitAfter(text, "\n") {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

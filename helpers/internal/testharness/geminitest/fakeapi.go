// Package geminitest lets Go tests drive the real Gemini CLI offline.
//
// A test starts a FakeAPI (a scripted fake of the Gemini API's
// generateContent and streamGenerateContent methods on loopback), points
// the CLI at it with Run, and then inspects what the CLI did (files, hook
// side effects) and what it sent to the "model" (FakeAPI.Requests).
// StartInteractive runs the interactive UI instead, in tmux, and types
// into it as a person would. FindCLI locates the pinned CLI and skips the
// test when it is not installed (or fails it when CI=true).
package geminitest

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

// Part is one scripted part of a fake model reply: text, or a function
// call (the Gemini API's name for a tool call).
type Part struct {
	// Text is the text of a text part.
	Text string
	// Call is the function's name for a function call part, e.g.
	// "run_shell_command"; empty for a text part.
	Call string
	// Args are the call's arguments; they are marshalled to a JSON object
	// (nil means {}).
	Args any
}

// Text returns a scripted text part.
func Text(s string) Part { return Part{Text: s} }

// Call returns a scripted function call part. args is marshalled to JSON,
// e.g. map[string]any{"command": "echo hi"} for run_shell_command.
func Call(name string, args any) Part { return Part{Call: name, Args: args} }

// Shell returns a scripted call of Gemini CLI's shell tool running command.
func Shell(command string) Part {
	return Call(ShellTool, map[string]any{"command": command, "description": "run a command"})
}

// ShellTool is the name of Gemini CLI's shell tool.
const ShellTool = "run_shell_command"

// DoneText is the text the fake answers with once the scripted turns are
// exhausted.
const DoneText = "done"

// SideReplyText is the text the fake answers side requests with (requests
// without tools that ask for no JSON), unless the responder answers them.
const SideReplyText = "side reply"

// Request is one generateContent or streamGenerateContent request received
// by the fake.
type Request struct {
	// Side is true for requests without tools (the CLI's own side calls:
	// the model router's classifier, summaries); unless the responder
	// answers them they get SideReplyText, or for a request that asks for
	// JSON an object that fits its schema. Side requests consume no
	// scripted turn.
	Side bool
	// Responded is true when the responder set with FakeAPI.Respond chose
	// the answer; such a request consumes no scripted turn.
	Responded bool
	// Turn is the index of the scripted turn answered, -1 for side requests
	// and requests the responder answered, len(turns) or more once the
	// script was exhausted (answered DoneText).
	Turn int
	// Model is the model named in the path, e.g. "gemini-2.5-flash".
	Model string
	// Stream is true for streamGenerateContent.
	Stream bool
	// Path is the request path including the query, e.g.
	// "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse".
	Path string
	// Body is the raw JSON body.
	Body []byte
}

// Text flattens all text the request sends to the model, joined by
// newlines: the system instruction's parts, then every content's parts of
// every role (text, function calls' arguments and function responses, as
// JSON). Gemini CLI 0.61.0 sends hook context inside the user's content,
// as <hook_context>...</hook_context>, so it is included.
func (r Request) Text() string {
	var req struct {
		SystemInstruction *content  `json:"systemInstruction"`
		Contents          []content `json:"contents"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return string(r.Body)
	}
	var out []string
	if req.SystemInstruction != nil {
		out = req.SystemInstruction.appendText(out)
	}
	for _, c := range req.Contents {
		out = c.appendText(out)
	}
	return strings.Join(out, "\n")
}

// UserText is Text of the contents alone, without the system instruction:
// what the conversation says.
func (r Request) UserText() string {
	var req struct {
		Contents []content `json:"contents"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return string(r.Body)
	}
	var out []string
	for _, c := range req.Contents {
		out = c.appendText(out)
	}
	return strings.Join(out, "\n")
}

// content is one Content of the Gemini API: a role and its parts.
type content struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             string          `json:"text"`
		FunctionCall     json.RawMessage `json:"functionCall"`
		FunctionResponse json.RawMessage `json:"functionResponse"`
	} `json:"parts"`
}

func (c content) appendText(out []string) []string {
	for _, p := range c.Parts {
		switch {
		case p.Text != "":
			out = append(out, p.Text)
		case len(p.FunctionCall) > 0:
			out = append(out, string(p.FunctionCall))
		case len(p.FunctionResponse) > 0:
			out = append(out, string(p.FunctionResponse))
		}
	}
	return out
}

// FakeAPI is a scripted fake of the Gemini API served on 127.0.0.1. It is
// safe for concurrent requests. Its Script's Respond sets a responder for
// generateContent and streamGenerateContent requests.
type FakeAPI struct {
	srv *httptest.Server
	t   testing.TB // for errors in the responder's answers
	*clitest.Script[Request, Part]
}

// StartFakeAPI starts a fake Gemini API that answers main requests (those
// with tools) with the scripted turns in order, then with DoneText, and
// side requests as Request.Side says; a responder set with Respond comes
// first. The server is closed when the test ends.
func StartFakeAPI(t testing.TB, turns [][]Part) *FakeAPI {
	t.Helper()
	script, err := clitest.NewScript[Request](turns, checkParts, []Part{Text(DoneText)})
	if err != nil {
		t.Fatalf("geminitest: %v", err)
	}
	f := &FakeAPI{t: t, Script: script}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serveHTTP))
	t.Cleanup(f.srv.Close)
	return f
}

// checkParts reports what is wrong with the parts of one reply, if
// anything: a reply needs at least one part, and a call's arguments must
// marshal to a JSON object.
func checkParts(parts []Part) error {
	if len(parts) == 0 {
		return fmt.Errorf("no parts")
	}
	for j, p := range parts {
		if p.Call == "" {
			continue
		}
		b, err := json.Marshal(p.Args)
		if err != nil {
			return fmt.Errorf("part %d: call arguments: %v", j, err)
		}
		if s := string(b); s != "null" && !strings.HasPrefix(s, "{") {
			return fmt.Errorf("part %d: call arguments are not an object: %s", j, s)
		}
	}
	return nil
}

// URL returns the base URL of the fake, e.g. "http://127.0.0.1:41234",
// for GOOGLE_GEMINI_BASE_URL.
func (f *FakeAPI) URL() string { return f.srv.URL }

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

// route splits a Gemini API path, "/v1beta/models/MODEL:METHOD", into the
// model and the method; ok is false for any other path.
func route(path string) (model, method string, ok bool) {
	i := strings.Index(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	model, method, ok = strings.Cut(path[i+len("/models/"):], ":")
	return model, method, ok && model != "" && !strings.Contains(model, "/")
}

func (f *FakeAPI) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.Hit(r.Method + " " + r.URL.RequestURI())

	model, method, ok := route(r.URL.Path)
	switch {
	case r.Method != http.MethodPost || !ok:
		writeError(w, http.StatusNotFound, "geminitest: no such method")
		return
	case method == "countTokens":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"totalTokens":10}`)
		return
	case method != "generateContent" && method != "streamGenerateContent":
		writeError(w, http.StatusNotFound, "geminitest: no such method")
		return
	}

	var req struct {
		Tools            []json.RawMessage `json:"tools"`
		GenerationConfig struct {
			ResponseMIMEType   string          `json:"responseMimeType"`
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	_ = json.Unmarshal(body, &req)
	side := len(req.Tools) == 0
	stream := method == "streamGenerateContent"
	rec := Request{Side: side, Turn: -1, Model: model, Stream: stream, Path: r.URL.RequestURI(), Body: body}

	parts, _, bad := f.Answer(rec, side, func(r *Request, turn int, responded bool) {
		r.Turn, r.Responded = turn, responded
	})
	if bad != nil {
		f.t.Errorf("geminitest: the responder's answer to %s: %v", rec.Path, bad)
		writeError(w, http.StatusInternalServerError, "geminitest: invalid responder answer")
		return
	}
	if parts == nil { // a side request nobody responded to
		schema := req.GenerationConfig.ResponseJSONSchema
		if len(schema) == 0 {
			schema = req.GenerationConfig.ResponseSchema
		}
		if req.GenerationConfig.ResponseMIMEType == "application/json" {
			parts = []Part{Text(string(instance(schema)))}
		} else {
			parts = []Part{Text(SideReplyText)}
		}
	}

	if !stream {
		w.Header().Set("Content-Type", "application/json")
		b, err := json.Marshal(response(model, parts, true))
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	_ = writeSSE(w, fl, model, parts)
}

// writeError writes an error as the Gemini API does.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"code": code, "message": msg, "status": http.StatusText(code)}})
	w.Write(b)
}

// response is one GenerateContentResponse carrying parts; last adds the
// finish reason and the usage, as the final chunk of a stream does.
func response(model string, parts []Part, last bool) map[string]any {
	type m = map[string]any
	var ps []any
	for _, p := range parts {
		if p.Call == "" {
			ps = append(ps, m{"text": p.Text})
			continue
		}
		args := p.Args
		if args == nil {
			args = m{}
		}
		ps = append(ps, m{"functionCall": m{"name": p.Call, "args": args}})
	}
	cand := m{"content": m{"role": "model", "parts": ps}, "index": 0}
	out := m{"candidates": []any{cand}, "modelVersion": model, "responseId": "geminitest"}
	if last {
		cand["finishReason"] = "STOP"
		out["usageMetadata"] = m{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	}
	return out
}

// writeSSE writes a streamed reply (streamGenerateContent?alt=sse) as the
// Gemini API does: one "data: " event per chunk, each ended by CRLF CRLF.
// Text parts are split in two chunks, so that the client assembles them;
// the last chunk carries the finish reason and the usage. It flushes after
// each event when fl is not nil.
func writeSSE(w io.Writer, fl http.Flusher, model string, parts []Part) error {
	var chunks [][]Part
	for _, p := range parts {
		if p.Call == "" && len(p.Text) > 1 {
			half := len(p.Text) / 2
			for half < len(p.Text) && (p.Text[half]&0xC0) == 0x80 {
				half++ // not inside a UTF-8 sequence
			}
			chunks = append(chunks, []Part{Text(p.Text[:half])}, []Part{Text(p.Text[half:])})
			continue
		}
		chunks = append(chunks, []Part{p})
	}
	for i, c := range chunks {
		b, err := json.Marshal(response(model, c, i == len(chunks)-1))
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
	}
	return nil
}

// instance returns a JSON value that fits a JSON schema (or the Gemini
// API's OpenAPI-style schema, with upper-case type names): every property
// of an object, an enum's first value, "geminitest" for a string, 1 for a
// number. It is the answer to side requests that ask for JSON, so that the
// CLI's own structured calls (its model router, say) go on.
func instance(schema json.RawMessage) json.RawMessage {
	var s struct {
		Type       any                        `json:"type"`
		Enum       []json.RawMessage          `json:"enum"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return json.RawMessage(`{}`)
	}
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch strings.ToLower(typ) {
	case "string":
		return json.RawMessage(`"geminitest"`)
	case "integer", "number":
		return json.RawMessage(`1`)
	case "boolean":
		return json.RawMessage(`false`)
	case "array":
		if len(s.Items) == 0 {
			return json.RawMessage(`[]`)
		}
		return json.RawMessage(`[` + string(instance(s.Items)) + `]`)
	}
	obj := map[string]json.RawMessage{}
	for name, sub := range s.Properties {
		obj[name] = instance(sub)
	}
	b, _ := json.Marshal(obj)
	return b
}

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// frontend stands between the client and the SDK on stdio. It reads the
// client's lines itself and passes the SDK only well-formed JSON-RPC 2.0
// messages, one a line; everything else gets its error response here and
// the server goes on:
//
//   - a line that is not JSON: -32700 (parse error);
//   - a batch (MCP from 2025-06-18 has none), a message that is not an
//     object, a jsonrpc other than "2.0", an id that is neither a string
//     nor an integer (MCP's rule), a method that is not a string, or the
//     id of a request not answered yet: -32600 (invalid request);
//   - a line over [maxFrame]: -32600, read past without being kept.
//
// It also lets a client that closes stdin after its last request (a
// script: printf ... | cairn mcp) get every answer: the SDK takes the end
// of its input for the client's going away and cancels what is in flight,
// so the end is passed on only once every request passed on was answered
// (or ctx ends). Since every request it passes on has an id no other
// pending request has, and the SDK answers each, the end always comes.
type frontend struct {
	ctx context.Context
	in  io.Reader
	out io.Writer
	sdk *io.PipeWriter // the SDK's input

	mu       sync.Mutex // guards out and the fields below
	answered *sync.Cond
	pending  map[string]bool // the client's requests not answered yet
	asked    map[string]bool // the server's requests not answered yet
	outLine  []byte
}

func newFrontend(ctx context.Context, in io.Reader, out io.Writer, sdk *io.PipeWriter) *frontend {
	f := &frontend{ctx: ctx, in: in, out: out, sdk: sdk, pending: map[string]bool{}, asked: map[string]bool{}}
	f.answered = sync.NewCond(&f.mu)
	return f
}

// maxFrame caps one message from the client.
const maxFrame = 4 << 20

// JSON-RPC error codes.
const (
	codeParse   = -32700
	codeInvalid = -32600
)

// wake stops a wait for answers (ctx ended, or the SDK stopped).
func (f *frontend) wake() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered.Broadcast()
}

// pump reads the client's messages until stdin ends, then waits for the
// answers to the requests passed on and ends the SDK's input.
func (f *frontend) pump() {
	br := bufio.NewReaderSize(f.in, 64<<10)
	for {
		line, long, err := readFrame(br)
		switch {
		case long:
			f.reject(nil, codeInvalid, fmt.Sprintf("message over %d bytes", maxFrame))
		case len(bytes.TrimSpace(line)) > 0:
			if !f.take(line) {
				// The SDK stopped reading: nothing more is answered.
				return
			}
		}
		if err != nil {
			break
		}
	}
	f.mu.Lock()
	for len(f.pending) > 0 && f.ctx.Err() == nil {
		f.answered.Wait()
	}
	f.mu.Unlock()
	f.sdk.Close()
}

// readFrame reads one line without its end; a line over maxFrame is read
// past and reported long.
func readFrame(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxFrame+1 {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), long, err
		}
	}
}

// envelope is what the frontend checks of a message.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
}

// take checks one line from the client and passes it on, or answers it;
// it is false once the SDK no longer reads.
func (f *frontend) take(line []byte) bool {
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		if !json.Valid(line) {
			f.reject(nil, codeParse, "parse error")
			return true
		}
		f.reject(nil, codeInvalid, "batches are not supported")
		return true
	}
	var m envelope
	if err := json.Unmarshal(line, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			f.reject(nil, codeInvalid, "a message must be a JSON object")
		} else if json.Valid(line) {
			f.reject(nil, codeInvalid, "invalid message: "+err.Error())
		} else {
			f.reject(nil, codeParse, "parse error")
		}
		return true
	}
	var key string
	if m.ID != nil {
		k, ok := idKey(m.ID)
		if !ok {
			f.reject(nil, codeInvalid, "id must be a string or an integer")
			return true
		}
		key = k
	}
	id := m.ID
	if m.ID == nil {
		id = nil
	}
	if m.JSONRPC == nil || *m.JSONRPC != "2.0" {
		f.reject(id, codeInvalid, `jsonrpc must be "2.0"`)
		return true
	}
	switch {
	case m.Method != nil:
		var method string
		if json.Unmarshal(m.Method, &method) != nil || method == "" {
			f.reject(id, codeInvalid, "method must be a non-empty string")
			return true
		}
		if m.ID != nil {
			f.mu.Lock()
			dup := f.pending[key]
			f.pending[key] = true
			f.mu.Unlock()
			if dup {
				f.reject(id, codeInvalid, "id "+string(id)+" is already used by a request not answered yet")
				return true
			}
		}
	case m.ID != nil:
		// A response: passed on only when it answers the server.
		f.mu.Lock()
		mine := f.asked[key]
		delete(f.asked, key)
		f.mu.Unlock()
		if !mine {
			return true
		}
	default:
		f.reject(nil, codeInvalid, "a message needs a method or an id")
		return true
	}
	_, err := f.sdk.Write(append(line, '\n'))
	return err == nil
}

// idKey is a message id as one string, "s" and the string or "n" and the
// integer; ok is false for any other id (a fraction, null, an object...).
func idKey(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return "s" + s, true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return "", false
	}
	return "n" + strconv.FormatInt(n, 10), true
}

// reject answers a message with a JSON-RPC error (id null when it had no
// usable id).
func (f *frontend) reject(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out.Write(append(resp, '\n'))
}

// Write writes the SDK's messages to stdout, noting the answers to the
// client's requests and the server's own requests.
func (f *frontend) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.out.Write(p)
	f.outLine = scanLines(f.outLine, p[:n], func(line []byte) {
		id, request := head(line)
		key, ok := idKey(id)
		switch {
		case !ok:
		case request:
			f.asked[key] = true
		default:
			delete(f.pending, key)
		}
	})
	f.answered.Broadcast()
	return n, err
}

// head reads the id of a message from the SDK and whether it is a request
// (it has a method), from the keys before its result, error or params:
// what follows may be cut (see scanLines).
func head(line []byte) (id json.RawMessage, request bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return id, request
		}
		switch t {
		case "result", "error":
			return id, false
		case "params":
			return id, request
		case "method":
			request = true
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return id, request
		}
		if t == "id" {
			id = v
		}
	}
	return id, request
}

// Close is a no-op: stdout is the process's.
func (f *frontend) Close() error { return nil }

// maxLine bounds what is kept of an output line that has not ended yet.
const maxLine = 1 << 20

// scanLines calls fn with each line completed by data, carrying the
// unfinished one over (its first maxLine bytes).
func scanLines(partial, data []byte, fn func([]byte)) []byte {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			room := max(0, maxLine-len(partial))
			return append(partial, data[:min(room, len(data))]...)
		}
		line := data[:i]
		if len(partial) > 0 {
			line = append(partial, line[:min(max(0, maxLine-len(partial)), len(line))]...)
		}
		fn(line)
		partial = partial[:0]
		data = data[i+1:]
	}
	return partial
}

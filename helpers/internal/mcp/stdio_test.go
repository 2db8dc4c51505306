package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A client that writes its requests and closes stdin (a script piping into
// cairn mcp) gets every answer, and stdout holds nothing but them.
func TestServeAnswersBeforeEOF(t *testing.T) {
	dir := repo(t)
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const n = 20
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"type":"fact","content":"fact number %d"}}}`+"\n", i, i)
	}
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"recall","arguments":{"query":"fact number","limit":50}}}`) // no final newline
	var out bytes.Buffer
	if err := Serve(context.Background(), options(dir, vars(t)), strings.NewReader(in.String()), &out); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Result == nil || m.Result.IsError {
			t.Fatalf("stdout line is not a successful response: %q (%v)", line, err)
		}
		ids[string(m.ID)] = true
	}
	if len(ids) != n+2 || !ids[`"last"`] {
		t.Errorf("answered %d of %d requests: %v", len(ids), n+2, ids)
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		line             string
		calls, responses int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 1, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, 0},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, 0, 0},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, 1},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`, 0, 1},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"},{"jsonrpc":"2.0","method":"c"}]`, 2, 0},
		{`not json`, 0, 0},
		{``, 0, 0},
	} {
		if got := calls([]byte(c.line)); got != c.calls {
			t.Errorf("calls(%s) = %d, want %d", c.line, got, c.calls)
		}
		if got := responses([]byte(c.line)); got != c.responses {
			t.Errorf("responses(%s) = %d, want %d", c.line, got, c.responses)
		}
	}
}

// scanLines finds the same lines however the stream is cut into reads.
func FuzzScanLines(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"method\":\"a\"}\n{\"id\":2}\npartial"), uint8(3))
	f.Add([]byte("\n\n\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		var whole, pieces []string
		rest := scanLines(nil, data, func(l []byte) { whole = append(whole, string(l)) })
		step := int(cut)%7 + 1
		var partial []byte
		for i := 0; i < len(data); i += step {
			partial = scanLines(partial, data[i:min(i+step, len(data))], func(l []byte) { pieces = append(pieces, string(l)) })
		}
		if len(data) < maxLine && (strings.Join(whole, "\n") != strings.Join(pieces, "\n") || string(rest) != string(partial)) {
			t.Errorf("lines differ: %q + %q vs %q + %q", whole, rest, pieces, partial)
		}
		for _, l := range whole {
			calls([]byte(l))
			responses([]byte(l))
		}
	})
}

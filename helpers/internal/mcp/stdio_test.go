package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
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

// initLines open a session as a client does.
const initLines = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// afterLine is a request sent after the bad input: its answer shows the
// server went on.
const afterLine = `{"jsonrpc":"2.0","id":"after","method":"tools/list"}` + "\n"

// answer is one line the server wrote.
type answer struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
}

// serveBounded runs Serve over in and returns its error and its answers by
// id; it fails the test if Serve has not returned once in ended, within
// a bound that only stops a regression from hanging the run.
func serveBounded(t *testing.T, in io.Reader) (map[string][]answer, error) {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), options(repo(t), vars(t)), in, &out) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("cairn mcp did not end when its input ended")
	}
	got := map[string][]answer{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a answer
		if jerr := json.Unmarshal([]byte(line), &a); jerr != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		got[string(a.ID)] = append(got[string(a.ID)], a)
	}
	return got, err
}

// Issue 24: bad input ended the server (rc 1), and some well-formed input
// left it running after stdin closed. Each bad message gets its error
// response, the next request its answer, and the server ends with its
// input.
func TestServeBadInput(t *testing.T) {
	huge := func() io.Reader {
		return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"type":"fact","content":"`),
			io.LimitReader(clitest.Endless('a'), 200<<20), strings.NewReader(`"}}}`+"\n"))
	}
	for _, tc := range []struct {
		name string
		in   func() io.Reader
		id   string // the id the error answer carries
		code int
	}{
		{"garbage", lines("this is not json"), "null", -32700},
		{"torn", lines(`{"jsonrpc":"2.0","id":3,"method":`), "null", -32700},
		{"batch", lines(`[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`), "null", -32600},
		{"empty batch", lines(`[]`), "null", -32600},
		{"object id", lines(`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`), "null", -32600},
		{"array id", lines(`{"jsonrpc":"2.0","id":[1],"method":"tools/list"}`), "null", -32600},
		{"bool id", lines(`{"jsonrpc":"2.0","id":true,"method":"tools/list"}`), "null", -32600},
		{"null id", lines(`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`), "null", -32600},
		{"float id", lines(`{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`), "null", -32600},
		{"wrong jsonrpc", lines(`{"jsonrpc":"1.0","id":8,"method":"tools/list"}`), "8", -32600},
		{"no jsonrpc", lines(`{"id":8,"method":"tools/list"}`), "8", -32600},
		{"not an object", lines(`"tools/list"`), "null", -32600},
		{"number method", lines(`{"jsonrpc":"2.0","id":8,"method":3}`), "8", -32600},
		{"200 MB frame", huge, "null", -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := serveBounded(t, io.MultiReader(strings.NewReader(initLines), tc.in(), strings.NewReader(afterLine)))
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			if as := got[tc.id]; len(as) != 1 || as[0].Error == nil || as[0].Error.Code != tc.code {
				t.Errorf("answers with id %s: %+v, want one error %d", tc.id, as, tc.code)
			}
			if as := got[`"after"`]; len(as) != 1 || as[0].Result == nil {
				t.Errorf("the request after was not answered: %+v", got)
			}
		})
	}
}

// lines is a reader of each line, newline-ended.
func lines(ls ...string) func() io.Reader {
	return func() io.Reader { return strings.NewReader(strings.Join(ls, "\n") + "\n") }
}

// Issue 24: after these, closing stdin left the server running. Each
// request gets an answer and the server ends.
func TestServeEndsWithInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		ids  []string // each answered once
	}{
		{"same id twice", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"stats","arguments":{}}}` + "\n" +
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"stats","arguments":{}}}`, []string{"9"}},
		{"float id", `{"jsonrpc":"2.0","id":2.0,"method":"tools/list"}`, []string{"null"}},
		{"second initialize", strings.TrimSpace(strings.SplitN(initLines, "\n", 2)[0]), []string{"0"}},
		{"a response nobody asked for", `{"jsonrpc":"2.0","id":77,"result":{}}`, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":10,"method":"no/such"}`, []string{"10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := serveBounded(t, strings.NewReader(initLines+tc.in+"\n"+afterLine))
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			for _, id := range tc.ids {
				if len(got[id]) == 0 {
					t.Errorf("id %s not answered: %v", id, got)
				}
			}
			if as := got[`"after"`]; len(as) != 1 || as[0].Result == nil {
				t.Errorf("the request after was not answered: %+v", got)
			}
		})
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
			head([]byte(l))
		}
	})
}

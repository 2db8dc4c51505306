package opencodetest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// chunk is the part of a chat.completion.chunk the tests read.
type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// stream is what a client puts together from one streamed answer.
type stream struct {
	content string
	calls   map[int]*[3]string // id, name, arguments
	finish  string
	usage   bool
	done    bool
}

func post(t *testing.T, f *FakeAPI, body string) stream {
	t.Helper()
	resp, err := http.Post(f.URL()+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	s := stream{calls: map[int]*[3]string{}}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if s.done {
			t.Fatalf("data after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			s.done = true
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Errorf("object = %q", c.Object)
		}
		if c.Usage != nil {
			s.usage = true
		}
		for _, ch := range c.Choices {
			s.content += ch.Delta.Content
			for _, tc := range ch.Delta.ToolCalls {
				call := s.calls[tc.Index]
				if call == nil {
					call = &[3]string{}
					s.calls[tc.Index] = call
				}
				if tc.ID != "" {
					call[0] = tc.ID
				}
				call[1] += tc.Function.Name
				call[2] += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				s.finish = *ch.FinishReason
			}
		}
	}
	return s
}

const withTools = `{"model":"fake","stream":true,"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[{"role":"system","content":"SYS"},{"role":"user","content":[{"type":"text","text":"hi"}]}]}`

// The fake streams what an OpenAI-compatible client assembles: text in
// pieces, tool calls whose arguments arrive in pieces, the finish reason,
// the usage and [DONE]; main requests take the script in order, side
// requests (no tools) get the side reply and take no turn.
func TestFakeAPIStreams(t *testing.T) {
	f := StartFakeAPI(t, [][]Block{
		{Text("Looking."), Bash("call_1", `bd comments add bd-1 "LEARNED: it streams"`)},
		{Text("Done.\nLEARNED: replies stream too")},
	})
	side := post(t, f, `{"model":"fake","stream":true,"messages":[{"role":"system","content":"You are a title generator."}]}`)
	if side.content != SideReplyText || side.finish != "stop" || !side.done || !side.usage {
		t.Errorf("side answer = %+v", side)
	}
	first := post(t, f, withTools)
	if first.content != "Looking." || first.finish != "tool_calls" || !first.done || !first.usage {
		t.Errorf("first answer = %+v", first)
	}
	call := first.calls[0]
	if call == nil || call[0] != "call_1" || call[1] != "bash" {
		t.Fatalf("tool call = %v", call)
	}
	var args struct{ Command string }
	if err := json.Unmarshal([]byte(call[2]), &args); err != nil || args.Command != `bd comments add bd-1 "LEARNED: it streams"` {
		t.Errorf("arguments %q: %v", call[2], err)
	}
	second := post(t, f, withTools)
	if second.content != "Done.\nLEARNED: replies stream too" || second.finish != "stop" || len(second.calls) != 0 {
		t.Errorf("second answer = %+v", second)
	}
	if third := post(t, f, withTools); third.content != DoneText {
		t.Errorf("after the script: %q", third.content)
	}
	reqs := f.Requests()
	if len(reqs) != 4 || !reqs[0].Side || reqs[1].Turn != 0 || reqs[2].Turn != 1 || reqs[3].Turn != 2 {
		t.Errorf("requests: %+v", reqs)
	}
	if len(f.MainRequests()) != 3 {
		t.Errorf("main requests: %d", len(f.MainRequests()))
	}
	if got := reqs[1].System(); got != "SYS" {
		t.Errorf("System() = %q", got)
	}
	if got := reqs[1].Text(); got != "SYS\nhi" {
		t.Errorf("Text() = %q", got)
	}
}

// A request without stream gets one chat.completion; any other path is a
// 404 in the API's error shape.
func TestFakeAPIUnstreamedAndUnknown(t *testing.T) {
	f := StartFakeAPI(t, [][]Block{{Bash("call_9", "ls")}})
	resp, err := http.Post(f.URL()+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"fake","tools":[{"type":"function","function":{"name":"bash"}}],"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	err = json.NewDecoder(resp.Body).Decode(&c)
	resp.Body.Close()
	if err != nil || c.Object != "chat.completion" || len(c.Choices) != 1 || c.Choices[0].FinishReason != "tool_calls" ||
		len(c.Choices[0].Message.ToolCalls) != 1 || c.Choices[0].Message.ToolCalls[0].ID != "call_9" {
		t.Errorf("unstreamed answer: %+v (%v)", c, err)
	}
	resp, err = http.Get(f.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `"error"`) {
		t.Errorf("GET /models: %d %s", resp.StatusCode, body)
	}
	if hits := f.Hits(); len(hits) != 2 || hits[1] != "GET /v1/models" {
		t.Errorf("hits: %v", hits)
	}
}

// A scripted tool call without an id or a name is refused up front.
func TestCheckBlocks(t *testing.T) {
	for _, bad := range [][]Block{nil, {{ID: "x"}}, {{Name: "bash"}}, {{ID: "x", Name: "bash", Input: func() {}}}} {
		if checkBlocks(bad) == nil {
			t.Errorf("checkBlocks(%v) = nil", bad)
		}
	}
	if err := checkBlocks([]Block{Text("a"), Bash("c", "ls")}); err != nil {
		t.Error(err)
	}
}

// The environment keeps nothing that points OpenCode elsewhere, and the
// quiet settings win over the test's own.
func TestChildEnv(t *testing.T) {
	env := childEnv([]string{"PATH=/bin", "OPENCODE_CONFIG=/x", "OPENAI_API_KEY=k", "XDG_CONFIG_HOME=/c", "HTTPS_PROXY=p", "CAIRN_OPENCODE_BIN=/b", "KEEP=1"},
		[]string{"HOME=/h", "KEEP=2"})
	got := strings.Join(env, " ")
	for _, gone := range []string{"OPENCODE_CONFIG", "OPENAI_API_KEY", "XDG_CONFIG_HOME", "HTTPS_PROXY", "CAIRN_OPENCODE_BIN", "KEEP=1"} {
		if strings.Contains(got, gone) {
			t.Errorf("%s leaked: %s", gone, got)
		}
	}
	for _, kept := range []string{"PATH=/bin", "HOME=/h", "KEEP=2", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s missing: %s", kept, got)
		}
	}
}

package claudetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// sseEvent is one parsed server-sent event.
type sseEvent struct {
	name string
	data map[string]any
}

// parseSSE parses a server-sent event stream as the Messages API client does.
func parseSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var evs []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				evs = append(evs, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if cur.name != "" {
		t.Fatalf("stream ends inside event %q", cur.name)
	}
	return evs
}

// reassemble rebuilds the content blocks and stop reason of a streamed reply.
func reassemble(t *testing.T, evs []sseEvent) ([]Block, string) {
	t.Helper()
	var blocks []Block
	var partial []string
	stop := ""
	for i, ev := range evs {
		if ev.data["type"] != ev.name {
			t.Errorf("event %d: name %q, data type %v", i, ev.name, ev.data["type"])
		}
		switch ev.name {
		case "content_block_start":
			cb := ev.data["content_block"].(map[string]any)
			b := Block{Type: cb["type"].(string)}
			if b.Type == "tool_use" {
				b.ID, b.Name = cb["id"].(string), cb["name"].(string)
			}
			if int(ev.data["index"].(float64)) != len(blocks) {
				t.Errorf("block index %v, want %d", ev.data["index"], len(blocks))
			}
			blocks = append(blocks, b)
			partial = append(partial, "")
		case "content_block_delta":
			k := int(ev.data["index"].(float64))
			d := ev.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				blocks[k].Text += d["text"].(string)
			case "input_json_delta":
				partial[k] += d["partial_json"].(string)
			default:
				t.Errorf("unknown delta %v", d["type"])
			}
		case "content_block_stop":
			k := int(ev.data["index"].(float64))
			if blocks[k].Type == "tool_use" {
				var in any
				if err := json.Unmarshal([]byte(partial[k]), &in); err != nil {
					t.Errorf("tool input %q: %v", partial[k], err)
				}
				blocks[k].Input = in
			}
		case "message_delta":
			stop = ev.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	if n := len(evs); n < 2 || evs[0].name != "message_start" || evs[n-1].name != "message_stop" || evs[n-2].name != "message_delta" {
		t.Errorf("bad event order: %v", evs)
	}
	return blocks, stop
}

func TestWriteSSE(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks []Block
		stop   string
	}{
		{"text", []Block{Text("hello\nworld \"quoted\"")}, "end_turn"},
		{"tool", []Block{Text("running it"), ToolUse("toolu_01", "Bash", map[string]any{"command": "echo hello > out.txt"})}, "tool_use"},
		{"nil input", []Block{ToolUse("toolu_02", "Noop", nil)}, "tool_use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeSSE(&buf, nil, "msg_1", "m", tc.blocks); err != nil {
				t.Fatal(err)
			}
			evs := parseSSE(t, &buf)
			got, stop := reassemble(t, evs)
			if stop != tc.stop {
				t.Errorf("stop_reason %q, want %q", stop, tc.stop)
			}
			if len(got) != len(tc.blocks) {
				t.Fatalf("got %d blocks, want %d", len(got), len(tc.blocks))
			}
			for i, want := range tc.blocks {
				g := got[i]
				wantIn, _ := json.Marshal(want.Input)
				if string(wantIn) == "null" {
					wantIn = []byte("{}")
				}
				gotIn, _ := json.Marshal(g.Input)
				if g.Type != want.Type || g.Text != want.Text || g.ID != want.ID || g.Name != want.Name ||
					(want.Type == "tool_use" && string(gotIn) != string(wantIn)) {
					t.Errorf("block %d: got %+v (input %s), want %+v", i, g, gotIn, want)
				}
			}
			msg := evs[0].data["message"].(map[string]any)
			if msg["id"] != "msg_1" || msg["role"] != "assistant" || msg["model"] != "m" {
				t.Errorf("message_start: %v", msg)
			}
		})
	}
}

// TestFakeAPIHTTP exercises the fake over HTTP without the CLI: turn order
// under concurrency, side requests, count_tokens, HEAD/GET and the log.
func TestFakeAPIHTTP(t *testing.T) {
	turns := [][]Block{{Text("one")}, {Text("two")}, {Text("three")}}
	f := StartFakeAPI(t, turns)
	post := func(path, body string) (string, []byte) {
		resp, err := http.Post(f.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return "", nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.Header.Get("Content-Type"), b
	}
	main := `{"model":"x","tools":[{"name":"Bash"}],"system":[{"type":"text","text":"SYS"}],` +
		`"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"RESULT"}]}]}]}`

	ct, b := post("/v1/messages/count_tokens?beta=true", main)
	if ct != "application/json" || string(b) != `{"input_tokens":10}` {
		t.Errorf("count_tokens: %s %s", ct, b)
	}
	_, b = post("/v1/messages?beta=true", `{"model":"x","messages":[{"role":"user","content":"title please"}]}`)
	if blocks, _ := reassemble(t, parseSSE(t, bytes.NewReader(b))); len(blocks) != 1 || blocks[0].Text != SideReplyText {
		t.Errorf("side reply: %+v", blocks)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ct, b := post("/v1/messages", main)
			if ct != "text/event-stream" {
				t.Errorf("content type %q", ct)
			}
			blocks, _ := reassemble(t, parseSSE(t, bytes.NewReader(b)))
			mu.Lock()
			seen[blocks[0].Text]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	want := map[string]int{"one": 1, "two": 1, "three": 1, DoneText: 2}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("replies %v, want %v", seen, want)
			break
		}
	}

	for _, m := range []string{http.MethodHead, http.MethodGet} {
		req, _ := http.NewRequest(m, f.URL()+"/", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s /: %v %v", m, resp, err)
		} else {
			resp.Body.Close()
		}
	}

	reqs := f.Requests()
	if len(reqs) != 6 || !reqs[0].Side || reqs[0].Turn != -1 {
		t.Fatalf("requests: %+v", reqs)
	}
	texts := f.MainRequestTexts()
	if len(texts) != 5 || !strings.Contains(texts[0], "SYS") || !strings.Contains(texts[0], "RESULT") {
		t.Errorf("main texts: %q", texts)
	}
	if f.MainRequestsContain("title please") {
		t.Error("side request text counted as main")
	}
	if h := f.Hits(); len(h) != 9 || h[0] != "POST /v1/messages/count_tokens?beta=true" {
		t.Errorf("hits: %q", h)
	}
}

func TestChildEnv(t *testing.T) {
	env := childEnv([]string{
		"PATH=/bin", "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=cli", "CLAUDE_CONFIG_DIR=/x",
		"ANTHROPIC_API_KEY=real", "https_proxy=http://p", "HOME=/root", "KEEP=1",
	}, []string{"HOME=/tmp/h", "ANTHROPIC_API_KEY=test"})
	got := strings.Join(env, " ")
	for _, bad := range []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CONFIG_DIR", "real", "https_proxy", "HOME=/root"} {
		if strings.Contains(got, bad) {
			t.Errorf("env leaks %s: %s", bad, got)
		}
	}
	for _, good := range []string{"PATH=/bin", "KEEP=1", "HOME=/tmp/h", "ANTHROPIC_API_KEY=test", "DISABLE_AUTOUPDATER=1"} {
		if !strings.Contains(got, good) {
			t.Errorf("env misses %s: %s", good, got)
		}
	}
}

func TestCLITextReply(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	api := StartFakeAPI(t, [][]Block{{Text("HELLO-FROM-FAKE-MODEL")}})
	res := Run(t, RunOptions{CLI: bin, API: api, Dir: NewGitRepo(t), Prompt: "say the magic word"})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "HELLO-FROM-FAKE-MODEL") {
		t.Fatalf("unexpected run:\n%s", res)
	}
	mains := api.MainRequests()
	if len(mains) != 1 {
		t.Fatalf("%d main requests, want 1; hits %q", len(mains), api.Hits())
	}
	if !strings.Contains(mains[0].Text(), "say the magic word") {
		t.Errorf("prompt not sent to the model: %s", mains[0].Body)
	}
}

func TestCLIBashToolUse(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	repo := NewGitRepo(t)
	api := StartFakeAPI(t, [][]Block{
		{Text("writing the file"), ToolUse("toolu_01", "Bash", map[string]any{"command": "echo hello > out.txt && echo WROTE-IT"})},
		{Text("all written")},
	})
	res := Run(t, RunOptions{CLI: bin, API: api, Dir: repo, Prompt: "write out.txt"})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "all written") {
		t.Fatalf("unexpected run:\n%s", res)
	}
	b, err := os.ReadFile(filepath.Join(repo, "out.txt"))
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	mains := api.MainRequests()
	if len(mains) != 2 {
		t.Fatalf("%d main requests, want 2", len(mains))
	}
	// The second request carries the tool result for toolu_01.
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(mains[1].Body, &req); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range req.Messages {
		var blocks []struct {
			Type      string `json:"type"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for _, bl := range blocks {
			if bl.Type == "tool_result" && bl.ToolUseID == "toolu_01" {
				found = m.Role == "user"
			}
		}
	}
	if !found || !strings.Contains(mains[1].Text(), "WROTE-IT") {
		t.Errorf("second request lacks the tool result: %s", mains[1].Body)
	}
	if len(res.TranscriptPaths()) == 0 {
		t.Errorf("no transcript under %s", res.Home)
	}
}

// writeProbePlugin creates a minimal plugin whose SessionStart hook adds
// context, and returns its directory.
func writeProbePlugin(t *testing.T, context string) string {
	t.Helper()
	dir := t.TempDir()
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "SessionStart", "additionalContext": context}})
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "probe", "version": "0.0.1", "description": "claudetest probe"}`,
		"hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [` +
			`{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh\""}]}]}}`,
		"hooks/session-start.sh": "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '" + string(out) + "'\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCLIPluginSessionStartContext(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	plugin := writeProbePlugin(t, "PROBE-CONTEXT-123")
	api := StartFakeAPI(t, [][]Block{{Text("ok")}})
	res := Run(t, RunOptions{CLI: bin, API: api, Dir: NewGitRepo(t), Prompt: "hello", PluginDirs: []string{plugin}})
	if res.ExitCode != 0 {
		t.Fatalf("unexpected run:\n%s", res)
	}
	texts := api.MainRequestTexts()
	if len(texts) == 0 || !strings.Contains(texts[0], "PROBE-CONTEXT-123") {
		t.Fatalf("SessionStart context not in the first main request: %q", texts)
	}
	if !strings.Contains(texts[0], "SessionStart hook additional context") {
		t.Errorf("context not labelled as SessionStart hook context: %q", texts[0])
	}
}

func TestCLIStreamJSONTurns(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	api := StartFakeAPI(t, [][]Block{{Text("FIRST-REPLY")}, {Text("SECOND-REPLY")}})
	res := Run(t, RunOptions{CLI: bin, API: api, Dir: NewGitRepo(t), Turns: []string{"turn one", "turn two"}})
	if res.ExitCode != 0 {
		t.Fatalf("unexpected run:\n%s", res)
	}
	var results []string
	for _, ev := range res.StreamEvents() {
		if ev["type"] == "result" {
			s, _ := ev["result"].(string)
			results = append(results, s)
		}
	}
	if strings.Join(results, ",") != "FIRST-REPLY,SECOND-REPLY" {
		t.Errorf("results %q\n%s", results, res)
	}
	texts := api.MainRequestTexts()
	if len(texts) != 2 || !strings.Contains(texts[1], "turn one") || !strings.Contains(texts[1], "FIRST-REPLY") ||
		!strings.Contains(texts[1], "turn two") {
		t.Errorf("second turn does not carry the conversation: %q", texts)
	}
}

// errTB records Errorf instead of failing the real test.
type errTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (e *errTB) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// TestFakeAPIRespond exercises the responder over HTTP: it answers main and
// side requests by content, streamed or not, without consuming scripted
// turns, every request is still recorded, and an invalid answer fails the
// test with HTTP 500.
func TestFakeAPIRespond(t *testing.T) {
	et := &errTB{TB: t}
	f := StartFakeAPI(et, [][]Block{{Text("one")}, {Text("two")}})
	const distilled = `{"decisions":[{"what":"use retries"}]}`
	f.Respond(func(r Request) ([]Block, bool) {
		txt := r.Text()
		switch {
		case strings.Contains(txt, "DISTILL"):
			return []Block{Text(distilled)}, true
		case strings.Contains(txt, "TOOLME"):
			return []Block{ToolUse("toolu_r1", "Bash", map[string]any{"command": "true"})}, true
		case strings.Contains(txt, "BROKEN"):
			return nil, true
		}
		return nil, false
	})
	post := func(body string) (int, []Block, string) {
		t.Helper()
		resp, err := http.Post(f.URL()+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, nil, ""
		}
		blocks, stop := reassemble(t, parseSSE(t, bytes.NewReader(b)))
		return resp.StatusCode, blocks, stop
	}
	msg := func(stream bool, tools bool, text string) string {
		m := map[string]any{"model": "x", "messages": []any{map[string]any{"role": "user", "content": text}}}
		if stream {
			m["stream"] = true
		}
		if tools {
			m["tools"] = []any{map[string]any{"name": "Bash"}}
		}
		b, _ := json.Marshal(m)
		return string(b)
	}

	for _, tc := range []struct {
		name          string
		stream, tools bool
		text          string
		want          string // text of the only block, or "tool_use"
	}{
		{"side distill streamed", true, false, "please DISTILL this", distilled},
		{"side distill not streamed", false, false, "DISTILL again", distilled},
		{"side other", true, false, "a title please", SideReplyText},
		{"main distill", true, true, "DISTILL in a main request", distilled},
		{"main scripted", true, true, "hello", "one"},
		{"main tool", true, true, "TOOLME", "tool_use"},
		{"main scripted next", false, true, "hello again", "two"},
	} {
		code, blocks, stop := post(msg(tc.stream, tc.tools, tc.text))
		got := ""
		if len(blocks) == 1 {
			got = blocks[0].Text
			if blocks[0].Type == "tool_use" {
				got = "tool_use"
			}
		}
		if code != 200 || got != tc.want {
			t.Errorf("%s: HTTP %d, blocks %+v, want %q", tc.name, code, blocks, tc.want)
		}
		if wantStop := map[bool]string{true: "tool_use", false: "end_turn"}[got == "tool_use"]; stop != wantStop {
			t.Errorf("%s: stop_reason %q, want %q", tc.name, stop, wantStop)
		}
	}

	reqs := f.Requests()
	type summary struct {
		Side, Responded bool
		Turn            int
	}
	want := []summary{{true, true, -1}, {true, true, -1}, {true, false, -1}, {false, true, -1}, {false, false, 0}, {false, true, -1}, {false, false, 1}}
	if len(reqs) != len(want) {
		t.Fatalf("%d requests recorded, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if got := (summary{r.Side, r.Responded, r.Turn}); got != want[i] {
			t.Errorf("request %d: %+v, want %+v", i, got, want[i])
		}
	}
	if n := len(f.MainRequests()); n != 4 {
		t.Errorf("%d main requests, want 4", n)
	}

	if code, _, _ := post(msg(true, false, "BROKEN")); code != http.StatusInternalServerError {
		t.Errorf("invalid answer: HTTP %d, want 500", code)
	}
	et.mu.Lock()
	errs := et.errs
	et.mu.Unlock()
	if len(errs) != 1 || !strings.Contains(errs[0], "no blocks") {
		t.Errorf("invalid answer reported as %q", errs)
	}

	f.Respond(nil)
	if _, blocks, _ := post(msg(true, false, "DISTILL without a responder")); len(blocks) != 1 || blocks[0].Text != SideReplyText {
		t.Errorf("after Respond(nil): %+v", blocks)
	}
}

// TestCLIRespondHeadless answers a headless "claude -p" by the prompt's
// content, with tools and without (a side request), and leaves the scripted
// turn to the run the responder does not answer.
func TestCLIRespondHeadless(t *testing.T) {
	bin := FindCLI(t)
	t.Parallel()
	repo := NewGitRepo(t)
	api := StartFakeAPI(t, [][]Block{{Text("SCRIPTED-REPLY")}})
	const answer = `{"learnings":["retries need jitter"]}`
	api.Respond(func(r Request) ([]Block, bool) {
		if strings.Contains(r.Text(), "Distill this session") {
			return []Block{Text(answer)}, true
		}
		return nil, false
	})
	for _, args := range [][]string{nil, {"--tools", ""}} {
		res := Run(t, RunOptions{CLI: bin, API: api, Dir: repo, Prompt: "Distill this session into JSON", Args: args})
		if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != answer {
			t.Fatalf("args %q: unexpected run:\n%s", args, res)
		}
	}
	res := Run(t, RunOptions{CLI: bin, API: api, Dir: repo, Prompt: "hello"})
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "SCRIPTED-REPLY" {
		t.Fatalf("scripted turn: unexpected run:\n%s", res)
	}
	var responded, side int
	for _, r := range api.Requests() {
		if r.Responded {
			responded++
			if r.Side {
				side++
			}
		}
	}
	if responded != 2 || side != 1 {
		t.Errorf("%d requests answered by the responder (%d side), want 2 (1 side)", responded, side)
	}
}

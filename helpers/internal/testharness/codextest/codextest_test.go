package codextest

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sseEvents parses a stream of server-sent events into their data objects.
func sseEvents(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var ev map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
				t.Fatalf("data is not JSON: %q", line)
			}
			if ev["type"] != name {
				t.Errorf("event %q carries type %v", name, ev["type"])
			}
			out = append(out, ev)
		}
	}
	return out
}

// The stream has the events, in the order and shape, that Codex's
// Responses client reads.
func TestWriteSSE(t *testing.T) {
	var b strings.Builder
	if err := WriteSSE(&b, nil, "resp_1", "m", []Item{Text("one\ntwo"), Shell("call_1", "ls")}); err != nil {
		t.Fatal(err)
	}
	evs := sseEvents(t, strings.NewReader(b.String()))
	var types []string
	for _, ev := range evs {
		types = append(types, ev["type"].(string))
	}
	want := "response.created response.output_item.added response.output_text.delta response.output_text.delta response.output_item.done " +
		"response.output_item.added response.output_item.done response.completed"
	if strings.Join(types, " ") != want {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(types, " "), want)
	}
	msg := evs[4]["item"].(map[string]any)
	if msg["role"] != "assistant" || msg["content"].([]any)[0].(map[string]any)["text"] != "one\ntwo" {
		t.Errorf("message item: %v", msg)
	}
	call := evs[6]["item"].(map[string]any)
	if call["name"] != ShellTool || call["call_id"] != "call_1" || call["arguments"] != `{"cmd":"ls"}` {
		t.Errorf("function call item: %v", call)
	}
	usage := evs[7]["response"].(map[string]any)["usage"].(map[string]any)
	if usage["total_tokens"] != float64(15) {
		t.Errorf("usage: %v", usage)
	}
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Main requests take the script in order, then DoneText; side requests
// and the responder's take none; every request is recorded with its text.
func TestFakeAPI(t *testing.T) {
	api := StartFakeAPI(t, [][]Item{{Shell("c1", "ls")}, {Text("first")}})
	api.Respond(func(r Request) ([]Item, bool) {
		if strings.Contains(r.Text(), "RESPOND") {
			return []Item{Text("responded")}, true
		}
		return nil, false
	})
	const tools = `"tools":[{"type":"function","name":"exec_command"}]`
	texts := func(body string) string {
		var out []string
		for _, ev := range sseEvents(t, post(t, api.URL()+"/responses", body).Body) {
			if ev["type"] == "response.output_item.done" {
				it := ev["item"].(map[string]any)
				if c, ok := it["content"].([]any); ok {
					out = append(out, c[0].(map[string]any)["text"].(string))
				} else {
					out = append(out, it["name"].(string))
				}
			}
		}
		return strings.Join(out, ",")
	}
	if got := texts(`{` + tools + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`); got != ShellTool {
		t.Errorf("turn 0: %q", got)
	}
	if got := texts(`{"input":[]}`); got != SideReplyText {
		t.Errorf("side: %q", got)
	}
	if got := texts(`{` + tools + `,"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"RESPOND"}]}]}`); got != "responded" {
		t.Errorf("responder: %q", got)
	}
	if got := texts(`{` + tools + `,"instructions":"sys","input":[{"type":"function_call","arguments":"{\"cmd\":\"ls\"}"},{"type":"function_call_output","output":"out"}]}`); got != "first" {
		t.Errorf("turn 1: %q", got)
	}
	if got := texts(`{` + tools + `}`); got != DoneText {
		t.Errorf("after the script: %q", got)
	}
	main := api.MainRequests()
	if len(api.Requests()) != 5 || len(main) != 4 || main[0].Turn != 0 || !main[1].Responded || main[2].Turn != 1 {
		t.Fatalf("requests: %+v", api.Requests())
	}
	if got := main[2].Text(); got != "sys\n{\"cmd\":\"ls\"}\nout" {
		t.Errorf("Text = %q", got)
	}
	if resp, err := http.Get(api.URL() + "/models"); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /models: %v %v", resp, err)
	}
	if resp := post(t, api.URL()+"/chat/completions", "{}"); resp.StatusCode != 404 {
		t.Errorf("other path: %d", resp.StatusCode)
	}
}

// The config names the fake, keeps the CLI offline and trusts what it
// is asked to; the child environment carries no real account.
func TestWriteConfigAndEnv(t *testing.T) {
	home := t.TempDir()
	if err := WriteConfig(home, Config{BaseURL: "http://127.0.0.1:1/v1", Trusted: []string{"/p"}, Extra: "[x]\ny = 1"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	for _, want := range []string{`base_url = "http://127.0.0.1:1/v1"`, `wire_api = "responses"`, `approval_policy = "never"`,
		"check_for_update_on_startup = false", "plugins = false", "daemon_auto_start = false", "[analytics]\nenabled = false",
		"[projects.\"/p\"]\ntrust_level = \"trusted\"", "[x]\ny = 1"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config lacks %q:\n%s", want, b)
		}
	}
	t.Setenv("OPENAI_API_KEY", "sk-real")
	t.Setenv("CODEX_HOME", "/real/home")
	t.Setenv("HTTPS_PROXY", "http://proxy")
	env := strings.Join(Env(home, "EXTRA=1"), "\n") + "\n"
	for _, bad := range []string{"sk-real", "/real/home", "http://proxy"} {
		if strings.Contains(env, bad) {
			t.Errorf("env leaks %q", bad)
		}
	}
	for _, want := range []string{"HOME=" + home + "\n", "CODEX_HOME=" + filepath.Join(home, ".codex") + "\n", KeyEnv + "=" + APIKey + "\n", "EXTRA=1\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q", want)
		}
	}
}

// The real CLI, against the fake: a text answer is printed, and the first
// request streams to the fake with the prompt.
func TestCLITextReply(t *testing.T) {
	api := StartFakeAPI(t, [][]Item{{Text("hello from the fake")}})
	res := Run(t, RunOptions{API: api, Dir: NewGitRepo(t), Prompt: "say hello"})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "hello from the fake") {
		t.Fatalf("%s", res)
	}
	main := api.MainRequests()
	if len(main) != 1 || !strings.Contains(main[0].Text(), "say hello") {
		t.Fatalf("requests: %d\n%s", len(main), res)
	}
	if hits := api.Hits(); len(hits) != 1 || hits[0] != "POST /v1/responses" {
		t.Errorf("hits: %q", hits)
	}
	if len(res.RolloutPaths()) != 1 {
		t.Errorf("rollouts: %q", res.RolloutPaths())
	}
}

// The real CLI runs the shell command the fake asks for, without asking,
// and sends its output back.
func TestCLIShellCall(t *testing.T) {
	dir := NewGitRepo(t)
	api := StartFakeAPI(t, [][]Item{{Shell("call_1", "echo made > made.txt && echo shell-output-42")}, {Text("ran it")}})
	res := Run(t, RunOptions{API: api, Dir: dir, Prompt: "run it"})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "ran it") {
		t.Fatalf("%s", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "made.txt")); err != nil || string(b) != "made\n" {
		t.Errorf("made.txt: %q %v", b, err)
	}
	main := api.MainRequests()
	if len(main) != 2 || !strings.Contains(main[1].Text(), "shell-output-42") {
		t.Fatalf("the command's output did not reach the fake\n%s", res)
	}
}

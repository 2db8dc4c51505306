package geminitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// stopTB wraps a real testing.TB and records Fatalf and Skip instead of
// ending the test; run it in a goroutine of its own (see catch).
type stopTB struct {
	testing.TB
	fatal, skip string
}

func (s *stopTB) Helper() {}

func (s *stopTB) Fatalf(format string, args ...any) {
	s.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (s *stopTB) Skip(args ...any) {
	s.skip = fmt.Sprint(args...)
	runtime.Goexit()
}

// catch runs f with a stopTB until it returns or stops.
func catch(t *testing.T, f func(tb testing.TB)) *stopTB {
	s := &stopTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(s)
	}()
	<-done
	return s
}

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("stub CLIs are shell scripts")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Run gives the CLI its arguments, the fake's URL and key, a seeded HOME
// that trusts the working directory, and none of the developer's Gemini
// or Google variables.
func TestRunWithStubCLI(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "real-key")
	t.Setenv("GOOGLE_CLOUD_PROJECT", "real-project")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/real/creds.json")
	stub := script(t, t.TempDir(), "gemini", `printf '%s\n' "$@"; echo ---; env; echo "cwd=$(pwd)"`)
	api := StartFakeAPI(t, nil)
	dir := t.TempDir()
	res := Run(t, RunOptions{CLI: stub, API: api, Dir: dir, Prompt: "hi there", Args: []string{"--debug"}, Env: []string{"EXTRA=1"}})
	args, env, _ := strings.Cut(res.Stdout, "---\n")
	if want := "--prompt\nhi there\n--approval-mode\nyolo\n--debug\n"; args != want {
		t.Errorf("args %q, want %q", args, want)
	}
	for _, want := range []string{"\nHOME=" + res.Home + "\n", "\nGEMINI_API_KEY=" + APIKey + "\n", "\nGOOGLE_GEMINI_BASE_URL=" + api.URL() + "\n",
		"\nEXTRA=1\n", "\nGEMINI_TELEMETRY_ENABLED=false\n", "\ncwd=" + dir + "\n"} {
		if !strings.Contains("\n"+env, want) {
			t.Errorf("child env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"real-key", "real-project", "/real/creds.json"} {
		if strings.Contains(env, bad) {
			t.Errorf("child env leaks %q", bad)
		}
	}
	var settings map[string]any
	if err := json.Unmarshal(mustRead(t, filepath.Join(res.Home, ".gemini", "settings.json")), &settings); err != nil {
		t.Fatal(err)
	}
	if settings["privacy"].(map[string]any)["usageStatisticsEnabled"] != false || settings["telemetry"].(map[string]any)["enabled"] != false {
		t.Errorf("settings %v", settings)
	}
	var trusted map[string]string
	if err := json.Unmarshal(mustRead(t, filepath.Join(res.Home, ".gemini", "trustedFolders.json")), &trusted); err != nil || trusted[dir] != "TRUST_FOLDER" {
		t.Errorf("trusted folders %v (%v)", trusted, err)
	}

	res = Run(t, RunOptions{CLI: script(t, t.TempDir(), "gemini", "echo oops >&2; exit 3"), API: api, Untrusted: true})
	if res.ExitCode != 3 || res.Stderr != "oops\n" {
		t.Errorf("failing stub: %s", res)
	}
	if b := mustRead(t, filepath.Join(res.Home, ".gemini", "trustedFolders.json")); strings.Contains(string(b), res.Dir) {
		t.Errorf("an untrusted run trusts its folder: %s", b)
	}
}

func TestFindCLI(t *testing.T) {
	t.Setenv("CAIRN_GEMINI_NO_INSTALL", "1")
	dir := t.TempDir()
	good := script(t, dir, "gemini.js", "echo "+Version)
	t.Setenv("CAIRN_GEMINI_BIN", good)
	if got := FindCLI(t); got != good {
		t.Errorf("CAIRN_GEMINI_BIN: got %q", got)
	}

	prefix := t.TempDir()
	cli := scriptInPrefix(prefix)
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	script(t, filepath.Dir(cli), "gemini.js", "echo "+Version)
	t.Setenv("CAIRN_GEMINI_BIN", "")
	t.Setenv("CAIRN_GEMINI_PREFIX", prefix)
	if got := FindCLI(t); got != cli {
		t.Errorf("CAIRN_GEMINI_PREFIX: got %q, want %q", got, cli)
	}

	// Nothing installed: a wrong version on PATH, an empty prefix.
	pathDir := t.TempDir()
	script(t, pathDir, "gemini", "echo 0.1.0")
	t.Setenv("CAIRN_GEMINI_PREFIX", t.TempDir())
	t.Setenv("PATH", pathDir)
	t.Setenv("CI", "")
	r := catch(t, func(tb testing.TB) { FindCLI(tb) })
	if r.fatal != "" || !strings.Contains(r.skip, InstallCommand) || !strings.Contains(r.skip, `version "0.1.0"`) {
		t.Errorf("not installed, no CI: skip %q fatal %q", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	r = catch(t, func(tb testing.TB) { FindCLI(tb) })
	if r.skip != "" || !strings.Contains(r.fatal, ".ci/run") {
		t.Errorf("not installed, CI: skip %q fatal %q", r.skip, r.fatal)
	}
}

// post sends body to the fake's path and returns the response.
func post(t *testing.T, api *FakeAPI, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(api.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// chunk is one GenerateContentResponse, as far as the tests read it.
type chunk struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		TotalTokenCount int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

// readSSE reads a streamed reply: every event is "data: JSON" ended by
// CRLF CRLF, as the Gemini API writes them.
func readSSE(t *testing.T, r io.Reader) []chunk {
	t.Helper()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var out []chunk
	for _, ev := range strings.Split(strings.TrimSuffix(string(data), "\r\n\r\n"), "\r\n\r\n") {
		payload, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("event %q", ev)
		}
		var c chunk
		if err := json.Unmarshal([]byte(payload), &c); err != nil {
			t.Fatalf("event %q: %v", ev, err)
		}
		out = append(out, c)
	}
	return out
}

func TestFakeAPIHTTP(t *testing.T) {
	api := StartFakeAPI(t, [][]Part{
		{Text("héllo wörld"), Shell("ls")},
		{Text("second")},
	})
	const tools = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[]}]}`
	resp := post(t, api, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", tools)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("content type %q", resp.Header.Get("Content-Type"))
	}
	chunks := readSSE(t, resp.Body)
	var text strings.Builder
	var call string
	for i, c := range chunks {
		last := i == len(chunks)-1
		if (c.Candidates[0].FinishReason == "STOP") != last || (c.UsageMetadata != nil) != last {
			t.Errorf("chunk %d: finish %q usage %v", i, c.Candidates[0].FinishReason, c.UsageMetadata)
		}
		for _, p := range c.Candidates[0].Content.Parts {
			text.WriteString(p.Text)
			if p.FunctionCall != nil {
				call = p.FunctionCall.Name + " " + fmt.Sprint(p.FunctionCall.Args["command"])
			}
		}
	}
	if len(chunks) != 3 || text.String() != "héllo wörld" || call != ShellTool+" ls" {
		t.Errorf("%d chunks, text %q, call %q", len(chunks), text.String(), call)
	}

	resp = post(t, api, "/v1beta/models/gemini-2.5-flash:generateContent", tools)
	var whole chunk
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil || whole.Candidates[0].Content.Parts[0].Text != "second" {
		t.Errorf("generateContent: %+v %v", whole, err)
	}
	resp = post(t, api, "/v1beta/models/gemini-2.5-flash:generateContent", tools)
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil || whole.Candidates[0].Content.Parts[0].Text != DoneText {
		t.Errorf("after the script: %+v %v", whole, err)
	}

	// A side request that asks for JSON gets an object of its schema.
	side := `{"contents":[{"role":"user","parts":[{"text":"route"}]}],"generationConfig":{"responseMimeType":"application/json",` +
		`"responseJsonSchema":{"type":"object","properties":{"score":{"type":"integer"},"why":{"type":"string"},"who":{"type":"string","enum":["user","model"]}}}}}`
	resp = post(t, api, "/v1beta/models/gemini-2.5-flash-lite:generateContent", side)
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(whole.Candidates[0].Content.Parts[0].Text), &obj); err != nil || obj["score"] != 1.0 || obj["why"] != "geminitest" || obj["who"] != "user" {
		t.Errorf("side JSON answer %q (%v)", whole.Candidates[0].Content.Parts[0].Text, err)
	}
	resp = post(t, api, "/v1beta/models/gemini-2.5-flash-lite:generateContent", `{"contents":[]}`)
	if err := json.NewDecoder(resp.Body).Decode(&whole); err != nil || whole.Candidates[0].Content.Parts[0].Text != SideReplyText {
		t.Errorf("side answer %+v %v", whole, err)
	}

	if resp := post(t, api, "/v1beta/models/gemini-2.5-flash:countTokens", `{}`); resp.StatusCode != 200 {
		t.Errorf("countTokens: %d", resp.StatusCode)
	}
	if resp := post(t, api, "/v1beta/cachedContents", `{}`); resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}

	reqs := api.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Turn != 0 || !reqs[0].Stream || reqs[0].Model != "gemini-2.5-flash" || reqs[1].Turn != 1 || reqs[2].Turn != 2 || !reqs[3].Side || reqs[3].Turn != -1 {
		t.Errorf("requests %+v", reqs)
	}
	if got := reqs[0].Text(); got != "hi" {
		t.Errorf("Text %q", got)
	}
	if n := len(api.Hits()); n != 7 {
		t.Errorf("%d hits", n)
	}
}

func TestFakeAPIRespond(t *testing.T) {
	api := StartFakeAPI(t, [][]Part{{Text("scripted")}})
	api.Respond(func(r Request) ([]Part, bool) {
		if strings.Contains(r.Text(), "distill") {
			return []Part{Text(`{"decisions":[]}`)}, true
		}
		return nil, false
	})
	resp := post(t, api, "/v1beta/models/m:generateContent", `{"systemInstruction":{"parts":[{"text":"distill this"}]},"contents":[]}`)
	var c chunk
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || c.Candidates[0].Content.Parts[0].Text != `{"decisions":[]}` {
		t.Errorf("responder answer %+v %v", c, err)
	}
	resp = post(t, api, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[],"tools":[{}]}`)
	if chunks := readSSE(t, resp.Body); chunks[0].Candidates[0].Content.Parts[0].Text+chunks[1].Candidates[0].Content.Parts[0].Text != "scripted" {
		t.Errorf("scripted answer %+v", chunks)
	}
	reqs := api.Requests()
	if !reqs[0].Responded || reqs[0].Turn != -1 || reqs[1].Responded || reqs[1].Turn != 0 {
		t.Errorf("requests %+v", reqs)
	}
}

// Request.Text flattens text, function calls and function responses.
func TestRequestText(t *testing.T) {
	r := Request{Body: []byte(`{"systemInstruction":{"parts":[{"text":"sys"}]},"contents":[` +
		`{"role":"user","parts":[{"text":"<hook_context>ctx</hook_context>"},{"text":"prompt"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"ls"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"a.txt"}}}]}]}`)}
	sc := bufio.NewScanner(strings.NewReader(r.Text()))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 5 || lines[0] != "sys" || lines[2] != "prompt" || !strings.Contains(lines[3], `"command":"ls"`) || !strings.Contains(lines[4], "a.txt") {
		t.Errorf("Text: %q", lines)
	}
	if strings.Contains(r.UserText(), "sys") {
		t.Errorf("UserText has the system instruction")
	}
}

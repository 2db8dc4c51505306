package geminitest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI answers a prompt with the fake's text, through the streamed
// endpoint, and asks no classifier first (the model is fixed).
func TestCLITextReply(t *testing.T) {
	api := StartFakeAPI(t, [][]Part{{Text("hello from the fake model")}})
	res := Run(t, RunOptions{API: api, Prompt: "say hello"})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode, res)
	}
	if !strings.Contains(res.Stdout, "hello from the fake model") {
		t.Errorf("stdout lacks the fake's reply\n%s", res)
	}
	reqs := api.Requests()
	if len(reqs) == 0 || reqs[0].Side || !reqs[0].Stream || reqs[0].Model != Model {
		t.Errorf("first request %+v; want a streamed main request to %s\nhits: %v", reqs, Model, api.Hits())
	}
	if !api.MainRequestsContain("say hello") {
		t.Errorf("the prompt did not reach the model: %v", api.MainRequestTexts())
	}
	for _, h := range api.Hits() {
		if !strings.HasPrefix(h, "POST /v1beta/models/") {
			t.Errorf("unexpected request %s", h)
		}
	}
}

// The fake's function call runs the shell tool; its output goes back to
// the model in the next request, and project hooks see it (SessionStart's
// context reaches the first request, AfterTool gets the command).
func TestCLIShellToolAndHooks(t *testing.T) {
	dir := NewGitRepo(t)
	logf := filepath.Join(t.TempDir(), "hook.log")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	script := "#!/bin/sh\n{ printf '%s ' \"$1\"; cat; echo; } >> " + logf + "\n" +
		"if [ \"$1\" = SessionStart ]; then echo '{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"probe <context> 42\"}}'; fi\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{` +
		`"SessionStart":[{"hooks":[{"type":"command","command":"` + hook + ` SessionStart"}]}],` +
		`"AfterTool":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"` + hook + ` AfterTool"}]}],` +
		`"AfterAgent":[{"hooks":[{"type":"command","command":"` + hook + ` AfterAgent"}]}]}}`
	if err := os.MkdirAll(filepath.Join(dir, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	api := StartFakeAPI(t, [][]Part{
		{Shell("echo shell-output-77 > out.txt && cat out.txt")},
		{Text("all done")},
	})
	res := Run(t, RunOptions{API: api, Dir: dir, Prompt: "run it"})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode, res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || strings.TrimSpace(string(b)) != "shell-output-77" {
		t.Errorf("the shell tool did not run: %q %v\n%s", b, err, res)
	}
	texts := api.MainRequestTexts()
	if len(texts) < 2 {
		t.Fatalf("%d main requests, want 2\n%s", len(texts), res)
	}
	if !strings.Contains(texts[0], "probe &lt;context&gt; 42") {
		t.Errorf("SessionStart's context (escaped) is not in the first request:\n%.3000s", texts[0])
	}
	if !strings.Contains(texts[1], "shell-output-77") {
		t.Errorf("the tool's output is not in the second request:\n%.3000s", texts[1])
	}
	log, _ := os.ReadFile(logf)
	for _, want := range []string{"SessionStart {", `"tool_name":"run_shell_command"`, "echo shell-output-77", "AfterAgent {", `"prompt_response":"all done`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("hook log lacks %q:\n%s", want, log)
		}
	}
}

// Gemini CLI 0.61.0's AfterAgent payload: prompt_response is the whole
// reply, then every streamed chunk after the first again, joined by spaces
// (so typed lines come back cut, and fences unbalanced), while the session's
// transcript holds the reply once, whole. The Gemini CLI adapter reads the
// transcript for this reason; this test fails when a version changes it.
func TestCLIAfterAgentRepeatsChunks(t *testing.T) {
	dir := NewGitRepo(t)
	logf := filepath.Join(t.TempDir(), "hook.log")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >> "+logf+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks":{"AfterAgent":[{"hooks":[{"type":"command","command":"` + hook + `"}]}]}}`
	if err := os.MkdirAll(filepath.Join(dir, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	const reply = "first half, second half"
	api := StartFakeAPI(t, [][]Part{{Text(reply)}}) // streamed as "first half" and ", second half"
	res := Run(t, RunOptions{API: api, Dir: dir, Prompt: "go"})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d\n%s", res.ExitCode, res)
	}
	var p struct {
		PromptResponse string `json:"prompt_response"`
		TranscriptPath string `json:"transcript_path"`
	}
	if err := json.Unmarshal(mustRead(t, logf), &p); err != nil {
		t.Fatal(err)
	}
	if want := reply + " " + reply[len(reply)/2:]; p.PromptResponse != want {
		t.Errorf("prompt_response %q, want %q (did Gemini CLI change how it builds it?)", p.PromptResponse, want)
	}
	if tr := string(mustRead(t, p.TranscriptPath)); !strings.Contains(tr, `"type":"gemini","content":"`+reply+`"`) {
		t.Errorf("the transcript does not hold the reply whole:\n%s", tr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The interactive UI in tmux: two prompts, the second running the shell
// tool, then /quit; the fake sees both turns.
func TestInteractive(t *testing.T) {
	api := StartFakeAPI(t, [][]Part{{Text("first answer")}, {Shell("echo from-the-shell > out.txt")}, {Text("second answer")}})
	s := StartInteractive(t, InteractiveOptions{API: api, Dir: NewGitRepo(t)})
	s.Type("hello there")
	s.WaitScreen("first answer")
	s.WaitIdle()
	s.Type("run something")
	s.WaitScreen("second answer")
	s.WaitIdle()
	if b, err := os.ReadFile(filepath.Join(s.Dir(), "out.txt")); err != nil || strings.TrimSpace(string(b)) != "from-the-shell" {
		t.Errorf("the shell tool did not run: %q %v", b, err)
	}
	s.Exit()
	if s.ExitCode() != 0 {
		t.Errorf("exit code %d", s.ExitCode())
	}
	texts := api.MainRequestTexts()
	if len(texts) != 3 || !strings.Contains(texts[0], "hello there") || !strings.Contains(texts[2], "from-the-shell") {
		t.Errorf("requests: %q", texts)
	}
}

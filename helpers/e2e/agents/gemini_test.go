package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/geminitest"
)

// These tests run the real Gemini CLI against a fake Gemini API on
// loopback, in a temporary repository wired by `cairn init --gemini` and a
// temporary HOME. Without the CLI they skip (and fail under CI=true): see
// geminitest.FindCLI.
//
// Gemini CLI escapes < and > in every hook's context before the model
// sees it (0.61.0, DefaultHookOutput.getAdditionalContext) and wraps it in
// its own <hook_context> tag, so cairn's wrapper reaches the model as
// &lt;untrusted-knowledge ...&gt;: still a marked block, and one that
// nothing in it can close.

// geminiWrapOpen and geminiWrapClose are cairn's untrusted wrapper as the
// model gets it from Gemini CLI.
const (
	geminiWrapOpen  = "&lt;untrusted-knowledge"
	geminiWrapClose = "&lt;/untrusted-knowledge&gt;"
)

// geminiRepo is a git repository provisioned and wired for Gemini CLI by
// the real `cairn init --gemini`.
func geminiRepo(t *testing.T) string {
	t.Helper()
	repo := geminitest.NewGitRepo(t)
	out := cairntest.In(t, repo, "init", "--gemini")
	if !strings.Contains(out, "wired Gemini CLI") {
		t.Fatalf("cairn init --gemini:\n%s", out)
	}
	return repo
}

// geminiSession runs one headless Gemini CLI session in dir.
func geminiSession(t *testing.T, cli, dir string, api *geminitest.FakeAPI, prompt string, env ...string) geminitest.Result {
	t.Helper()
	res := geminitest.Run(t, geminitest.RunOptions{
		CLI: cli, API: api, Dir: dir, Prompt: prompt,
		Env: append([]string{"CAIRN_BIN=" + cairntest.Binary(t)}, env...),
	})
	if res.ExitCode != 0 {
		t.Fatalf("gemini exited %d\n%s", res.ExitCode, res)
	}
	return res
}

// geminiWrapped returns what is inside the first untrusted wrapper of text, as
// Gemini CLI hands it to the model.
func geminiWrapped(t *testing.T, text string) string {
	t.Helper()
	open := strings.Index(text, geminiWrapOpen)
	end := strings.Index(text, geminiWrapClose)
	if open < 0 || end < open {
		t.Fatalf("no untrusted wrapper in the request:\n%.3000s", text)
	}
	return text[open:end]
}

// A seeded entry relevant to the branch reaches the first model request
// inside the untrusted wrapper, with the must-check entry and the how-to;
// an irrelevant one does not; the person sees cairn's status line.
func TestGeminiSessionStartInjects(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	cairntest.In(t, repo, "add", "must-check", "Run the database migrations before deploying the API")
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{{geminitest.Text("ok")}})
	res := geminiSession(t, cli, repo, api, "fix the redirect bug")

	texts := api.MainRequestTexts()
	if len(texts) == 0 {
		t.Fatalf("no request reached the fake model\n%s", res)
	}
	first := texts[0]
	if !strings.Contains(first, "<hook_context>") {
		t.Fatalf("no hook context in the first request:\n%.3000s", first)
	}
	inside := geminiWrapped(t, first)
	for _, want := range []string{"OAuth redirect URI must match exactly", "Run the database migrations before deploying"} {
		if !strings.Contains(inside, want) {
			t.Errorf("%q is not inside the wrapper:\n%s", want, inside)
		}
	}
	if strings.Contains(first, "Kafka") {
		t.Errorf("the irrelevant entry was injected:\n%s", first)
	}
	if !strings.Contains(first, "LEARNED:") || !strings.Contains(first, "cairn add") {
		t.Errorf("no how-to-record lines:\n%.3000s", first)
	}
	if !strings.Contains(res.Stderr, "cairn: recalled") {
		t.Errorf("the person did not see cairn's status line\n%s", res)
	}
}

// A typed line in a shell command the model runs (bd is not installed, so
// the command fails) and typed lines in the final reply land in the log
// with the session's id, whole; the fenced one does not. The reply is
// streamed in four chunks: Gemini CLI's prompt_response is the whole reply
// and then the chunks after the first again, joined by spaces, which cuts
// lines ("table-driv en retry") and takes the fenced line out of its fence
// (with prompt_response, this test captures it). cairn reads the reply from
// the session's transcript instead.
func TestGeminiCapture(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
		{geminitest.Shell(`bd comments add bd-42 "LEARNED: the payment retry budget is three attempts with jitter"`)},
		{
			// Each part is streamed as two chunks.
			geminitest.Text("Done.\nDECISION: Keep payment retry settings in config/retry.toml so staging and prod"),
			geminitest.Text(" cannot drift.\nPATTERN: Every payment provider gets a table-driven retry test.\n\n```\nLEARNED: this one is inside a code fence\n```"),
		},
	})
	geminiSession(t, cli, repo, api, "fix the payment retries and record what you learn")

	entries := e2etest.LogEntries(t, repo)
	learned := e2etest.FindEntry(entries, "learned", "payment retry budget is three attempts")
	if learned == nil {
		t.Fatalf("the shell command's typed line is not in the log: %+v", entries)
	}
	if learned.Bead != "bd-42" || learned.Session == "" {
		t.Errorf("bead %q, session %q", learned.Bead, learned.Session)
	}
	decision := e2etest.FindEntry(entries, "decision", "Keep payment retry settings in config/retry.toml so staging and prod cannot drift.")
	pattern := e2etest.FindEntry(entries, "pattern", "Every payment provider gets a table-driven retry test.")
	if decision == nil || pattern == nil {
		t.Fatalf("the reply's typed lines are not in the log whole: %+v", entries)
	}
	if decision.Session != learned.Session {
		t.Errorf("the reply's session %q is not the command's %q", decision.Session, learned.Session)
	}
	for _, e := range entries {
		if strings.Contains(e.Content, "code fence") || strings.Contains(e.Content, "driv en") || strings.Contains(e.Content, "and prod  cannot") {
			t.Errorf("captured %s %q", e.Type, e.Content)
		}
	}
	if len(entries) != 3 {
		t.Errorf("%d entries, want 3: %+v", len(entries), entries)
	}
}

// Per-prompt recall: a headless prompt about a recorded topic (the branch
// says nothing of it, so the session's start does not show it) brings the
// entry into the request, inside the wrapper, through BeforeAgent; the
// prompt recall reads the person's prompt, not the start's context that
// Gemini CLI put before it.
func TestGeminiPromptRecall(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{{geminitest.Text("looking")}})
	geminiSession(t, cli, repo, api, "why does the oauth redirect fail with a trailing slash?")
	texts := api.MainRequestTexts()
	if len(texts) == 0 {
		t.Fatal("no request")
	}
	const entry = "OAuth redirect URI must match exactly"
	if n := strings.Count(texts[0], entry); n != 1 {
		t.Fatalf("the entry is in the request %d times, want once:\n%.4000s", n, texts[0])
	}
	i := strings.Index(texts[0], "why does the oauth redirect fail")
	j := strings.Index(texts[0], entry)
	if i < 0 || j < i {
		t.Errorf("the entry does not come after the prompt (BeforeAgent's context is appended to it):\n%.4000s", texts[0])
	}
	if !strings.Contains(geminiWrapped(t, texts[0][i:]), entry) {
		t.Errorf("the entry is not inside the wrapper")
	}
}

// An entry captured in a Gemini CLI session is recalled in a Claude Code
// session of the same project (wired for both), and one captured in Claude
// Code in the next Gemini CLI session.
func TestGeminiAndClaudeShareMemory(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	gcli := geminitest.FindCLI(t)
	ccli := claudetest.FindCLI(t)
	repo := geminitest.NewGitRepo(t)
	cairntest.In(t, repo, "init", "--claude", "--gemini")
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/payment-retries")

	const fromGemini = "the payment retry budget is three attempts with jitter"
	gapi := geminitest.StartFakeAPI(t, [][]geminitest.Part{{geminitest.Text("Done.\nLEARNED: " + fromGemini)}})
	geminiSession(t, gcli, repo, gapi, "fix the payment retries")
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "learned", fromGemini) == nil {
		t.Fatal("the Gemini CLI session did not capture its reply's typed line")
	}

	const fromClaude = "payment retries are logged to the retries table"
	capi := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("Done.\nFACT: " + fromClaude)}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: ccli, API: capi, Dir: repo, Prompt: "work on the payment retries",
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	ctx := e2etest.Injected(t, capi)
	if !strings.Contains(ctx, "<untrusted-knowledge") || !strings.Contains(ctx, fromGemini) {
		t.Errorf("Claude Code's first request does not carry the entry from Gemini CLI, wrapped:\n%.3000s", ctx)
	}
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "fact", fromClaude) == nil {
		t.Fatal("the Claude Code session did not capture its reply's typed line")
	}

	gapi2 := geminitest.StartFakeAPI(t, [][]geminitest.Part{{geminitest.Text("ok")}})
	geminiSession(t, gcli, repo, gapi2, "work on the payment retries")
	if texts := gapi2.MainRequestTexts(); len(texts) == 0 || !strings.Contains(geminiWrapped(t, texts[0]), fromClaude) {
		t.Errorf("Gemini CLI's first request does not carry the entry from Claude Code, wrapped:\n%.3000s", strings.Join(texts, "\n"))
	}
}

// A teammate without cairn: the committed wiring runs the launcher, which
// finds no cairn; the session starts normally and the first request says
// how to install it.
func TestGeminiWithoutCairn(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	home := t.TempDir()
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{{geminitest.Text("ok")}})
	path := filepath.Dir(nodePath(t)) + ":/usr/local/bin:/usr/bin:/bin"
	res := geminitest.Run(t, geminitest.RunOptions{CLI: cli, API: api, Dir: repo, Home: home, Prompt: "hello",
		Env: []string{"PATH=" + path, "CAIRN_BIN=", "GOPATH=" + filepath.Join(home, "go"), "GOBIN="}})
	if res.ExitCode != 0 {
		t.Fatalf("gemini exited %d\n%s", res.ExitCode, res)
	}
	texts := api.MainRequestTexts()
	if len(texts) == 0 || !strings.Contains(texts[0], "cairn is not installed on this machine") {
		t.Errorf("the first request does not carry the notice:\n%.3000s", strings.Join(texts, "\n"))
	}
	if strings.Contains(strings.Join(texts, "\n"), cairn.NoRouteHint) {
		t.Errorf("the install route reached the model:\n%.3000s", strings.Join(texts, "\n"))
	}
	if !strings.Contains(res.Stderr, "cairn: cairn is not installed on this machine") || !strings.Contains(res.Stderr, cairn.NoRouteHint) {
		t.Errorf("the person was not told\n%s", res)
	}
}

// nodePath is the node the Gemini CLI runs with.
func nodePath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	return p
}

// `cairn uninstall --gemini` removes exactly cairn's hooks: the user's own
// hooks and settings (and their comments) stay; a settings file of cairn's
// own making goes, and the launcher once no agent's wiring runs it.
func TestGeminiInitUninstall(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	repo := geminitest.NewGitRepo(t)
	own := "{\n  // the team's model\n  \"model\": {\"name\": \"gemini-2.5-pro\"},\n  \"hooks\": {\n    \"AfterTool\": [\n      {\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"./lint.sh\"}]}\n    ]\n  }\n}\n"
	settings := filepath.Join(repo, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	// What to commit is the settings file, not all of .gemini (which may
	// hold a .env with the person's API key).
	if out := cairntest.In(t, repo, "init", "--gemini"); !strings.Contains(out, "git add .cairn .gemini/settings.json &&") {
		t.Errorf("init --gemini says:\n%s", out)
	}
	wired := string(cairntest.MustRead(t, settings))
	if !strings.Contains(wired, "// the team's model") || !strings.Contains(wired, "./lint.sh") || !strings.Contains(wired, "--agent gemini AfterAgent") {
		t.Fatalf("wired settings:\n%s", wired)
	}
	if out := cairntest.In(t, repo, "init", "--gemini"); !strings.Contains(out, "already in place") {
		t.Errorf("a second init changed something:\n%s", out)
	}
	out := cairntest.In(t, repo, "uninstall", "--gemini")
	if !strings.Contains(out, "removed cairn's hooks from .gemini/settings.json") {
		t.Errorf("uninstall said:\n%s", out)
	}
	if got := string(cairntest.MustRead(t, settings)); got != own {
		t.Errorf("uninstall left\n%s\nwant\n%s", got, own)
	}

	fresh := geminitest.NewGitRepo(t)
	cairntest.In(t, fresh, "init", "--gemini")
	cairntest.In(t, fresh, "uninstall", "--gemini")
	for _, gone := range []string{".gemini", ".cairn/hook"} {
		if _, err := os.Stat(filepath.Join(fresh, gone)); !os.IsNotExist(err) {
			t.Errorf("%s of cairn's own making is still there: %v", gone, err)
		}
	}

	// Claude Code's wiring runs the launcher too: it stays.
	both := geminitest.NewGitRepo(t)
	cairntest.In(t, both, "init", "--claude", "--gemini")
	cairntest.In(t, both, "uninstall", "--gemini")
	if _, err := os.Stat(filepath.Join(both, ".cairn", "hook")); err != nil {
		t.Errorf("the launcher went while Claude Code's wiring runs it: %v", err)
	}
	if _, err := os.Stat(filepath.Join(both, ".gemini")); !os.IsNotExist(err) {
		t.Errorf(".gemini is still there: %v", err)
	}
}

// The interactive UI: SessionStart's context reaches the first request
// (Gemini CLI adds it to the history before the first prompt); an entry
// recorded after the session started comes in with the prompt about it,
// once; a reply's typed line is captured; /quit ends the session.
func TestGeminiInteractive(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	const later = "Kafka consumer lag alerts fire above ten thousand messages"
	const captured = "the lag dashboard lives in grafana under streaming"
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
		{geminitest.Text("first answer")},
		{geminitest.Text("Noted.\nLEARNED: " + captured)},
		{geminitest.Text("third answer")},
	})
	s := geminitest.StartInteractive(t, geminitest.InteractiveOptions{CLI: cli, API: api, Dir: repo,
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	s.Type("fix the redirect bug")
	s.WaitScreen("first answer")
	s.WaitIdle()
	cairntest.In(t, repo, "add", "fact", later)
	s.Type("why do the kafka consumer lag alerts fire")
	s.WaitScreen("Noted.")
	s.WaitIdle()
	s.Type("and the kafka consumer lag alerts once more")
	s.WaitScreen("third answer")
	s.WaitIdle()
	s.Exit()
	if s.ExitCode() != 0 {
		t.Errorf("exit code %d", s.ExitCode())
	}

	texts := api.MainRequestTexts()
	if len(texts) != 3 {
		t.Fatalf("%d main requests, want 3", len(texts))
	}
	if !strings.Contains(geminiWrapped(t, texts[0]), "OAuth redirect URI must match exactly") || strings.Contains(texts[0], later) {
		t.Errorf("the first request:\n%.3000s", texts[0])
	}
	if !strings.Contains(texts[1], later) || !strings.Contains(geminiWrapped(t, texts[1][strings.Index(texts[1], "why do the kafka"):]), later) {
		t.Errorf("the prompt about the new entry did not bring it in, wrapped:\n%.4000s", texts[1])
	}
	if n := strings.Count(texts[2], later); n != 1 {
		t.Errorf("the entry is in the third request %d times, want once (injected once)", n)
	}
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "learned", captured) == nil {
		t.Error("the reply's typed line is not in the log")
	}
}

// The session pipeline reads Gemini CLI's transcript: with the pipeline
// on, a session of two prompts, ended with /quit, is queued by its hooks
// and the detached worker exports it (the person's prompts and the
// agent's replies, Gemini CLI's own context left out) and distills it
// (model_command: a script that answers the distillation). Gemini CLI's
// transcript names no branch: the export has none.
func TestGeminiPipeline(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/retry")
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
		{geminitest.Text("Found it: the retry loop never selects on ctx.Done(), so a reset leaves it spinning.")},
		{geminitest.Text("Done: the backoff is exponential and capped at 30 s. Still open: a test for the jittered backoff.")},
	})
	home := t.TempDir()
	answer := filepath.Join(home, "distillation.txt")
	if err := os.WriteFile(answer, []byte(e2etest.Distillation), 0o644); err != nil {
		t.Fatal(err)
	}
	config := `{"pipeline": true, "model_command": ["sh", "-c", "cat >/dev/null; cat ` + answer + `"]}`
	if err := os.MkdirAll(filepath.Join(home, ".config", "cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "cairn", "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"CAIRN_BIN=" + cairntest.Binary(t), "CAIRN_NO_BACKGROUND=", "CAIRN_PIPELINE_CHILD=",
	}
	s := geminitest.StartInteractive(t, geminitest.InteractiveOptions{CLI: cli, API: api, Dir: repo, Home: home, Env: env})
	s.Type("The retry loop in client.go hangs forever when the server resets the connection during a deploy. Find out why and fix it.")
	s.WaitScreen("a reset leaves it spinning")
	s.WaitIdle()
	s.Type("Good. Use exponential backoff capped at 30 seconds instead of the fixed delay. A test for the jittered backoff can wait for tomorrow.")
	s.WaitScreen("Still open: a test for the jittered backoff")
	s.WaitIdle()
	s.Exit()

	state := filepath.Join(home, ".local", "state", "cairn")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var done struct {
			Distilled bool   `json:"distilled"`
			Reason    string `json:"reason"`
		}
		files, _ := filepath.Glob(filepath.Join(state, "queue", "done", "*.task"))
		if len(files) > 0 {
			b, _ := os.ReadFile(files[len(files)-1])
			if json.Unmarshal(b, &done) == nil && done.Distilled {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(state, "pipeline.log"))
			t.Fatalf("the worker did not distill the session\npipeline.log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond) // polling for a detached process, not timing
	}
	exports, _ := filepath.Glob(filepath.Join(home, ".local", "share", "cairn", "sessions", "*", "*.md"))
	if len(exports) != 1 {
		t.Fatalf("exports: %v", exports)
	}
	export := string(cairntest.MustRead(t, exports[0]))
	real, err := filepath.EvalSymlinks(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`agent: "Gemini CLI"`, `cwd: "` + real + `"`, "messages: 4", "## User", "The retry loop in client.go hangs forever", "## Assistant", "Still open: a test for the jittered backoff"} {
		if !strings.Contains(export, want) {
			t.Errorf("the export lacks %q:\n%s", want, export)
		}
	}
	for _, bad := range []string{"session_context", "hook_context", "untrusted-knowledge"} {
		if strings.Contains(export, bad) {
			t.Errorf("the export has %q:\n%s", bad, export)
		}
	}
}

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// The must-check of the guard tests, anchored to payments/client.go.
const clientCheck = "Run the payments contract tests after any change to the retry loop"

// guardedProject is anchoredProject with a must-check on
// payments/client.go and a team config that recommends guards (which
// turns nothing on), and a HOME whose person turned guards on.
func guardedProject(t *testing.T) (repo, home string) {
	t.Helper()
	repo = e2etest.AnchoredProject(t)
	cairntest.In(t, repo, "add", "--files", "payments/client.go", "must-check", clientCheck)
	if err := os.WriteFile(filepath.Join(repo, ".cairn", "config.json"), []byte(`{"guards": "ask"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, repo, "add", "-A")
	cairntest.Git(t, repo, "commit", "-q", "-m", "guarded")
	home = t.TempDir()
	conf := filepath.Join(home, ".config", "cairn")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "config.json"), []byte(`{"guards": "ask"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return repo, home
}

// readThenEdit are the scripted turns of a model that reads
// payments/client.go, edits it, and says done.
func readThenEdit(repo string) [][]claudetest.Block {
	file := filepath.Join(repo, "payments/client.go")
	return [][]claudetest.Block{
		{claudetest.ToolUse("toolu_01", "Read", map[string]any{"file_path": file})},
		{claudetest.ToolUse("toolu_02", "Edit", map[string]any{"file_path": file, "old_string": "-- payments", "new_string": "// payments"})},
		{claudetest.Text("done")},
	}
}

// logTrail logs, per main request the fake received, whether note was in
// it and what came just before it (a trimmed request log for the report).
func logTrail(t *testing.T, api *claudetest.FakeAPI, note string) {
	t.Helper()
	for i, r := range api.MainRequests() {
		text := r.Text()
		n := strings.Count(text, note)
		last := text
		if len(last) > 160 {
			last = last[len(last)-160:]
		}
		where := ""
		if j := strings.LastIndex(text, note); j >= 0 {
			from := max(0, j-160)
			where = " | around it: " + strings.ReplaceAll(text[from:min(len(text), j+len(note))], "\n", "⏎")
		}
		t.Logf("request %d: note %d× | ends: %s%s", i+1, n, strings.ReplaceAll(last, "\n", "⏎"), where)
	}
}

// toolErrors are the tool results a request sends back marked is_error.
func toolErrors(r claudetest.Request) []string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return nil
	}
	var out []string
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			IsError bool            `json:"is_error"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" && b.IsError {
				out = append(out, string(b.Content))
			}
		}
	}
	return out
}

// claude -p, with the person's guards on and the team recommending them:
// no one can answer, so nothing is asked and nothing denied. The read
// brings the must-check (the model has it before it edits), the edit
// runs and does not bring it again.
func TestClaudeGuardsPrintModeNeverDenies(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo, home := guardedProject(t)
	api := claudetest.StartFakeAPI(t, readThenEdit(repo))
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Home: home, Prompt: "tidy the payments client header",
		AllowedTools: []string{"Read", "Edit"}, PluginDirs: []string{cairntest.RepoRoot(t)},
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	logTrail(t, api, clientCheck)
	main := api.MainRequests()
	if len(main) != 3 {
		t.Fatalf("%d main requests, want 3\n%s", len(main), res)
	}
	texts := api.MainRequestTexts()
	if strings.Contains(texts[0], clientCheck) && strings.Count(texts[1], clientCheck) != strings.Count(texts[0], clientCheck)+1 {
		t.Errorf("the read did not bring the must-check as a check")
	}
	i := strings.LastIndex(texts[1], clientCheck)
	if i < 0 || !strings.Contains(texts[1][max(0, i-400):i], "Must check before changing payments/client.go") {
		t.Fatalf("the request after the read (before the edit) lacks the must-check under its heading:\n%.4000s", texts[1])
	}
	if errs := toolErrors(main[1]); len(errs) > 0 {
		t.Errorf("the read came back as an error: %q", errs)
	}
	if errs := toolErrors(main[2]); len(errs) > 0 {
		t.Errorf("the edit came back as an error (denied?): %q", errs)
	}
	if strings.Count(texts[2], clientCheck) != strings.Count(texts[1], clientCheck) {
		t.Errorf("the edit brought the must-check again")
	}
	data, err := os.ReadFile(filepath.Join(repo, "payments/client.go"))
	if err != nil || !strings.HasPrefix(string(data), "// payments") {
		t.Errorf("the edit did not run: %q, %v", data, err)
	}
}

// The terminal UI, with the person's guards on: the read of the guarded
// file asks nothing and brings the must-check; the edit asks the person,
// once, with the must-check named as team data; confirmed, it runs; a
// second edit in the session is not asked about. Edit is allowed by the
// command line, so the question on the screen is cairn's, not Claude
// Code's own.
func TestClaudeGuardsAskOnceBeforeTheEdit(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo, home := guardedProject(t)
	file := filepath.Join(repo, "payments/client.go")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		{claudetest.ToolUse("toolu_01", "Read", map[string]any{"file_path": file})},
		{claudetest.Text("client read")},
		{claudetest.ToolUse("toolu_02", "Edit", map[string]any{"file_path": file, "old_string": "-- payments", "new_string": "// payments"})},
		{claudetest.Text("first edit done")},
		{claudetest.ToolUse("toolu_03", "Edit", map[string]any{"file_path": file, "old_string": "client.go", "new_string": "client.go (v2)"})},
		{claudetest.Text("second edit done")},
	})
	s := claudetest.StartInteractive(t, claudetest.InteractiveOptions{CLI: cli, API: api, Dir: repo, Home: home,
		PluginDirs: []string{cairntest.RepoRoot(t)}, Args: []string{"--allowedTools", "Edit"},
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	s.Type("read the payments client")
	s.WaitRequests(2)
	s.WaitScreen("client read")
	s.WaitIdle()
	if strings.Contains(s.Screen(), "Do you want") {
		t.Fatalf("the read of the guarded file asked the person:\n%s", s.Screen())
	}
	s.Type("change its header comment")
	s.WaitRequests(3)
	s.WaitScreen("Do you want")
	screen := s.Screen()
	s.Keys("Enter") // the first choice: yes
	s.WaitScreen("first edit done")
	s.WaitIdle()
	s.Type("change it once more")
	s.WaitRequests(5)
	s.WaitScreen("second edit done")
	s.WaitIdle()
	if strings.Contains(s.Screen(), "Do you want") {
		t.Errorf("the second edit asked again:\n%s", s.Screen())
	}
	s.Exit()
	logTrail(t, api, clientCheck)
	texts := api.MainRequestTexts()
	if len(texts) < 6 {
		t.Fatalf("%d main requests, want 6", len(texts))
	}
	if strings.Count(texts[1], clientCheck) <= strings.Count(texts[0], clientCheck) {
		t.Errorf("the read did not bring the must-check")
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), "// payments/client.go (v2)") {
		t.Errorf("the edits did not both run: %q", data)
	}
	// The question was cairn's (Edit is allowed on the command line, and
	// the second edit was not asked about): the session's record says
	// cairn asked about the must-check, once.
	records, _ := filepath.Glob(filepath.Join(repo, ".cairn", "local", "sessions", "*.json"))
	asked := 0
	for _, r := range records {
		var st struct {
			Asked []string `json:"asked"`
		}
		if b, err := os.ReadFile(r); err == nil && json.Unmarshal(b, &st) == nil {
			asked += len(st.Asked)
		}
	}
	if asked != 1 {
		t.Errorf("cairn recorded %d questions, want 1", asked)
	}
	t.Logf("the question, as the person saw it:\n%s", screen)
}

// The decision the team recorded on client/retry.go, and the question a
// teammate asks about it.
const (
	retryDecision = "Retries back off linearly, not exponentially: the payment provider rate-limits bursts"
	retryQuestion = "why do our retries back off linearly?"
)

// retryProject is a repository with client/retry.go and a decision
// anchored to it.
func retryProject(t *testing.T) string {
	t.Helper()
	repo := claudetest.NewGitRepo(t)
	for _, f := range []string{"client/retry.go", "README.md"} {
		p := filepath.Join(repo, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("// "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.In(t, repo, "add", "--files", "client/retry.go", "decision", retryDecision)
	cairntest.Git(t, repo, "add", "-A")
	cairntest.Git(t, repo, "commit", "-q", "-m", "retry decision")
	return repo
}

// A question with no tool call gets the decision anchored to a file
// (held for the tool at the session start, brought by the prompt's own
// words); a session that reads, then edits, the file gets it once, with
// the read.
func TestClaudeAnchoredDecisionAnswersQuestion(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	bin := cairntest.Binary(t)

	repo := retryProject(t)
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("answered")}})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Prompt: retryQuestion,
		AllowedTools: []string{}, PluginDirs: []string{cairntest.RepoRoot(t)}, Env: []string{"CAIRN_BIN=" + bin}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	logTrail(t, api, retryDecision)
	texts := api.MainRequestTexts()
	if len(texts) != 1 || strings.Count(texts[0], retryDecision) != 1 {
		t.Fatalf("the question's request does not carry the decision once (%d requests):\n%.4000s", len(texts), strings.Join(texts, "\n---\n"))
	}

	repo = retryProject(t)
	file := filepath.Join(repo, "client/retry.go")
	api = claudetest.StartFakeAPI(t, [][]claudetest.Block{
		{claudetest.ToolUse("toolu_01", "Read", map[string]any{"file_path": file})},
		{claudetest.ToolUse("toolu_02", "Edit", map[string]any{"file_path": file, "old_string": "// client", "new_string": "// Client"})},
		{claudetest.Text("done")},
	})
	res = claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Prompt: "tidy the header comment",
		AllowedTools: []string{"Read", "Edit"}, PluginDirs: []string{cairntest.RepoRoot(t)}, Env: []string{"CAIRN_BIN=" + bin}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	logTrail(t, api, retryDecision)
	texts = api.MainRequestTexts()
	if len(texts) != 3 {
		t.Fatalf("%d main requests, want 3\n%s", len(texts), res)
	}
	for i, want := range []int{0, 1, 1} {
		if n := strings.Count(texts[i], retryDecision); n != want {
			t.Errorf("request %d carries the decision %d times, want %d", i+1, n, want)
		}
	}
}

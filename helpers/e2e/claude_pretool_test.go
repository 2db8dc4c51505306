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

// The model reads an anchored file: the fake's next request carries the
// note, inside the untrusted wrapper; a second read does not repeat it;
// an unanchored file adds nothing.
func TestClaudePreToolUseBringsAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := e2etest.AnchoredProject(t)
	const note = "The payments retry loop must stop when the request context is cancelled"
	read := func(id, f string) []claudetest.Block {
		return []claudetest.Block{claudetest.ToolUse(id, "Read", map[string]any{"file_path": filepath.Join(repo, f)})}
	}
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		read("toolu_01", "payments/client.go"),
		read("toolu_02", "payments/client.go"),
		read("toolu_03", "README.md"),
		{claudetest.Text("done")},
	})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Prompt: "look at the payments client",
		AllowedTools: []string{"Read"}, PluginDirs: []string{cairntest.RepoRoot(t)},
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	texts := api.MainRequestTexts()
	if len(texts) != 4 {
		t.Fatalf("%d main requests, want 4\n%s", len(texts), res)
	}
	count := func(i int) int { return strings.Count(texts[i], note) }
	if count(0) != 0 {
		t.Fatalf("the note came before the file was touched (session start):\n%.3000s", texts[0])
	}
	if count(1) != 1 {
		t.Fatalf("the request after the first read carries the note %d times:\n%.4000s", count(1), texts[1])
	}
	i := strings.Index(texts[1], note)
	if open := strings.LastIndex(texts[1][:i], "<untrusted-knowledge"); open < 0 || strings.Contains(texts[1][open:i], "</untrusted-knowledge>") {
		t.Errorf("the note is not inside the untrusted wrapper:\n%.4000s", texts[1])
	}
	if count(2) != 1 || count(3) != 1 {
		t.Errorf("a second read or an unanchored file repeated the note: %d, %d", count(2), count(3))
	}
	if strings.Contains(texts[3], "README.md") && strings.Count(texts[3], "<untrusted-knowledge") > strings.Count(texts[2], "<untrusted-knowledge") {
		t.Errorf("reading the unanchored README brought a block:\n%.4000s", texts[3])
	}
}

// sessionInjection is what one scripted session put in front of the model.
type sessionInjection struct {
	chars, start, prompt, tool int // characters (UTF-16 units): all, and by moment
	toolBlocks                 int
	seen, once                 int // touched files' notes seen by the request after the read; each once in the session
	untouched                  int // untouched anchored files' notes the model saw
	readmeAdded                bool
}

// The characters injected over a scripted session — a session start on a
// branch nine anchored payments notes are relevant to, a prompt, reads of
// three anchored files and one unanchored — with the notes anchored to
// files at the session start as before they waited for the tool (the
// team's "hold_for_tool": false) and with the default; and whether the model saw each touched file's note by
// the request after its read, once. The figures are logged (see
// docs/moment-of-use.md); the deterministic facts are asserted: fewer
// characters, every touched file's note seen once by its read, the
// untouched files' notes never, and nothing for the unanchored file.
func TestClaudePreToolUseInjectedChars(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	before := injectedChars(t, cli, false)
	after := injectedChars(t, cli, true)
	for _, r := range []struct {
		name string
		in   sessionInjection
	}{{"at the start (hold_for_tool false)", before}, {"held for the tool (default)", after}} {
		t.Logf("%s: %d characters injected (start %d, prompt %d, before tools %d in %d blocks); notes of the 3 read files seen by the request after their read: %d, each once: %d; notes of the 6 untouched anchored files seen: %d",
			r.name, r.in.chars, r.in.start, r.in.prompt, r.in.tool, r.in.toolBlocks, r.in.seen, r.in.once, r.in.untouched)
	}
	if after.chars >= before.chars {
		t.Errorf("the session injected %d characters, not fewer than the %d before", after.chars, before.chars)
	}
	if after.seen != 3 || after.once != 3 {
		t.Errorf("the model saw %d of 3 read files' notes by their read, %d once", after.seen, after.once)
	}
	if after.untouched != 0 {
		t.Errorf("the model saw %d notes of files it never touched", after.untouched)
	}
	if after.readmeAdded || after.toolBlocks != 3 {
		t.Errorf("%d blocks before tools (want 3, one per anchored read); the unanchored read added one: %v", after.toolBlocks, after.readmeAdded)
	}
}

// injectedChars runs the scripted session, with the anchored notes held
// for the moment before a tool or (hold false) shown at the start.
func injectedChars(t *testing.T, cli string, hold bool) sessionInjection {
	t.Helper()
	bin := cairntest.Binary(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/payments-retry-timeout")
	files := []string{"client", "retry", "refund", "ledger", "webhook", "config", "currency", "invoice", "payout"}
	notes := map[string]string{}
	for _, f := range files {
		p := filepath.Join(repo, "payments", f+".go")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("package payments\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		notes[f] = "Payments " + f + " retry timeout note: keep the " + f + " path idempotent and watch the context deadline"
		cairntest.In(t, repo, "add", "--files", "payments/"+f+".go", "learned", notes[f])
	}
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("shop\n"), 0o644)
	for i, n := range []string{"Payments retry timeouts are tuned in the provider dashboard, not in code",
		"The payments timeout alert pages the on-call after five minutes",
		"Retry storms in payments were caused by a missing jitter in 2024"} {
		cairntest.In(t, repo, "add", []string{"fact", "decision", "learned"}[i], n)
	}
	cairntest.In(t, repo, "add", "must-check", "Run the payments contract tests before merging")
	if !hold {
		if err := os.WriteFile(filepath.Join(repo, ".cairn", "config.json"), []byte(`{"hold_for_tool": false}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.Git(t, repo, "add", "-A")
	cairntest.Git(t, repo, "commit", "-q", "-m", "payments notes")

	read := func(id, f string) []claudetest.Block {
		return []claudetest.Block{claudetest.ToolUse(id, "Read", map[string]any{"file_path": filepath.Join(repo, f)})}
	}
	touched := []string{"client", "retry", "refund"}
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		read("toolu_01", "payments/client.go"), read("toolu_02", "payments/retry.go"),
		read("toolu_03", "payments/refund.go"), read("toolu_04", "README.md"),
		{claudetest.Text("done")},
	})
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Prompt: "look over the payments package",
		AllowedTools: []string{"Read"}, PluginDirs: []string{cairntest.RepoRoot(t)}, Env: []string{"CAIRN_BIN=" + bin}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	texts := api.MainRequestTexts()
	if len(texts) != 5 {
		t.Fatalf("%d main requests, want 5\n%s", len(texts), res)
	}
	var r sessionInjection
	for i, f := range touched {
		if strings.Contains(texts[i+1], notes[f]) {
			r.seen++
		}
		if strings.Count(texts[4], notes[f]) == 1 {
			r.once++
		}
	}
	for _, f := range files[len(touched):] {
		if strings.Contains(texts[4], notes[f]) {
			r.untouched++
		}
	}
	r.readmeAdded = strings.Count(texts[4], "<untrusted-knowledge") > strings.Count(texts[3], "<untrusted-knowledge")
	data, _ := os.ReadFile(filepath.Join(repo, ".cairn", "local", "injections.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var in struct {
			Used   int    `json:"used"`
			Moment string `json:"moment"`
		}
		if json.Unmarshal([]byte(line), &in) != nil {
			continue
		}
		r.chars += in.Used
		switch in.Moment {
		case "session start":
			r.start += in.Used
		case "prompt":
			r.prompt += in.Used
		case "before a tool":
			r.tool += in.Used
			r.toolBlocks++
		}
	}
	return r
}

// The model searches before it reads: a Grep whose path is an anchored
// file brings that file's note with the search's result, inside the
// untrusted wrapper, before any Read or Edit; a Glob in the must-check's
// directory brings the must-check again beside the listing.
func TestClaudeSearchToolsBringAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := e2etest.AnchoredProject(t)
	api := claudetest.StartFakeAPI(t, searchTurns(repo))
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Prompt: "where does the code talk to the bank",
		AllowedTools: []string{"Grep", "Glob"}, PluginDirs: []string{cairntest.RepoRoot(t)},
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	checkSearchNotes(t, api.MainRequestTexts())
}

// The same searches in the terminal UI, as a person would run them in
// tmux: the Grep brings the anchored note and the Glob the must-check,
// each in the request after the tool's result.
func TestClaudeInteractiveSearchToolsBringAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := e2etest.AnchoredProject(t)
	api := claudetest.StartFakeAPI(t, searchTurns(repo))
	s := claudetest.StartInteractive(t, claudetest.InteractiveOptions{CLI: cli, API: api, Dir: repo,
		PluginDirs: []string{cairntest.RepoRoot(t)}, Args: []string{"--allowedTools", "Grep,Glob"},
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	s.Type("where does the code talk to the bank")
	s.WaitRequests(3)
	s.WaitScreen("searches done")
	s.WaitIdle()
	s.Exit()
	checkSearchNotes(t, api.MainRequestTexts())
}

// Notes of the search tests.
const (
	searchNote      = "The payments retry loop must stop when the request context is cancelled"
	searchMustCheck = "Dry-run every migration against a staging snapshot first"
)

// searchTurns are the model's turns of the search tests: a Grep of an
// anchored file, a Glob in a must-check's directory, then an answer.
func searchTurns(repo string) [][]claudetest.Block {
	return [][]claudetest.Block{
		{claudetest.ToolUse("toolu_01", "Grep", map[string]any{"pattern": "payments", "path": filepath.Join(repo, "payments/client.go")})},
		{claudetest.ToolUse("toolu_02", "Glob", map[string]any{"pattern": "*.sql", "path": filepath.Join(repo, "db/migrations")})},
		{claudetest.Text("searches done")},
	}
}

// checkSearchNotes checks the requests of a search test: the note is not
// in the first, once in the second (after the Grep) inside the untrusted
// wrapper, and the must-check, which opens every session, comes once
// more after the Glob in its directory, beside the listing.
func checkSearchNotes(t *testing.T, texts []string) {
	t.Helper()
	if len(texts) != 3 {
		t.Fatalf("%d main requests, want 3", len(texts))
	}
	if strings.Contains(texts[0], searchNote) {
		t.Fatalf("the note came before the search:\n%.3000s", texts[0])
	}
	if n := strings.Count(texts[1], searchNote); n != 1 {
		t.Fatalf("the request after the Grep carries the note %d times:\n%.4000s", n, texts[1])
	}
	i := strings.Index(texts[1], searchNote)
	if open := strings.LastIndex(texts[1][:i], "<untrusted-knowledge"); open < 0 || strings.Contains(texts[1][open:i], "</untrusted-knowledge>") {
		t.Errorf("the note is not inside the untrusted wrapper:\n%.4000s", texts[1])
	}
	before := strings.Count(texts[1], searchMustCheck)
	if after := strings.Count(texts[2], searchMustCheck); after != before+1 {
		t.Errorf("after the Glob in db/migrations the must-check is there %d times, before it %d:\n%.4000s", after, before, texts[2])
	}
}

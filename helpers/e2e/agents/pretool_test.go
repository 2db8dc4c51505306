package agents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/codextest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/geminitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/opencodetest"
)

// Codex: before a shell command that names an anchored file, the note
// reaches the model with the command's result; a second command on it
// does not repeat it.
func TestCodexPreToolUseBringsAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := e2etest.AnchoredProject(t)
	cairntest.In(t, repo, "init", "--codex")
	const note = "The payments retry loop must stop when the request context is cancelled"
	api := codextest.StartFakeAPI(t, [][]codextest.Item{
		{codextest.Shell("call_1", "cat payments/client.go")},
		{codextest.Shell("call_2", "wc -l payments/client.go")},
		{codextest.Text("done")},
	})
	res := codexSession(t, repo, repo, api, "look at the payments client")
	if !strings.Contains(res.Stderr, "hook: PreToolUse Completed") {
		t.Errorf("the PreToolUse hook did not run\n%s", res)
	}
	texts := api.MainRequestTexts()
	if len(texts) != 3 {
		t.Fatalf("%d main requests, want 3\n%s", len(texts), res)
	}
	if strings.Contains(texts[0], note) {
		t.Fatalf("the note came before the file was touched")
	}
	if strings.Count(texts[1], note) != 1 || strings.Count(texts[2], note) != 1 {
		t.Errorf("the note reached the model %d, then %d times (want 1, 1)\n%.3000s", strings.Count(texts[1], note), strings.Count(texts[2], note), texts[1])
	}
}

// OpenCode: before the model reads an anchored file, cairn's plugin asks
// cairn, and the note joins the system prompt of the next model request;
// reading it again adds nothing new.
func TestOpenCodeToolBeforeBringsAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := opencodetest.FindCLI(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	cairntest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	seed := e2etest.AnchoredProject(t)
	cairntest.Git(t, seed, "remote", "add", "origin", remote)
	cairntest.Git(t, seed, "push", "-q", "origin", "main")
	a := e2etest.NewTeammate(t, remote, true)
	initIn(t, a, "--opencode")
	const note = "The payments retry loop must stop when the request context is cancelled"
	read := func(id string) []opencodetest.Block {
		return []opencodetest.Block{opencodetest.ToolCall(id, "read", map[string]any{"filePath": filepath.Join(a.Dir, "payments/client.go")})}
	}
	api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{read("call_1"), read("call_2"), {opencodetest.Text("done")}})
	res := opencodeSession(t, a, cli, api, "look at the payments client")
	main := api.MainRequests()
	if len(main) != 3 {
		t.Fatalf("%d main requests, want 3\n%s", len(main), res)
	}
	if strings.Contains(main[0].System(), note) {
		t.Fatalf("the note came before the file was touched")
	}
	if n := strings.Count(main[1].System(), note); n != 1 {
		t.Errorf("the request after the read carries the note %d times in its system prompt\n%.3000s", n, main[1].System())
	}
	if n := strings.Count(main[2].System(), note); n != 1 {
		t.Errorf("after the second read the note is there %d times", n)
	}
}

// Gemini CLI: after read_file on an anchored file, the note reaches the
// model with the file's content (AfterTool's additionalContext), once; an
// unanchored file adds nothing.
func TestGeminiFileToolBringsAnchoredNote(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := e2etest.AnchoredProject(t)
	cairntest.In(t, repo, "init", "--gemini")
	const note = "The payments retry loop must stop when the request context is cancelled"
	read := func(f string) []geminitest.Part {
		return []geminitest.Part{geminitest.Call("read_file", map[string]any{"file_path": filepath.Join(repo, f)})}
	}
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
		read("payments/client.go"), read("payments/client.go"), read("README.md"), {geminitest.Text("done")},
	})
	res := geminiSession(t, cli, repo, api, "look at the payments client")
	texts := api.MainRequestTexts()
	if len(texts) != 4 {
		t.Fatalf("%d main requests, want 4\n%s", len(texts), res)
	}
	if strings.Contains(texts[0], note) {
		t.Fatalf("the note came before the file was read")
	}
	for i, want := range []int{1, 1, 1} {
		if n := strings.Count(texts[i+1], note); n != want {
			t.Errorf("request %d carries the note %d times, want %d\n%.3000s", i+2, n, want, texts[i+1])
		}
	}
}

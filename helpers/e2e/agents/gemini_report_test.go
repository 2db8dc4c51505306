package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/geminitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// With the real Gemini CLI and a team holdout share of 0.5: a session
// whose id (set with --session-id) the share holds out sends the model no
// cairn context (no session-start block, no prompt notes), a session it
// keeps does, and `cairn report --agent gemini` counts one session in each
// group from Gemini CLI's own transcripts, with the tool calls and the
// failed one (a shell command that exits non-zero, which Gemini CLI marks
// a success) as the fake model scripted them, and compactions as not
// recorded by Gemini CLI.
func TestGeminiHoldoutAndReport(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	e2etest.HoldoutProject(t, repo)
	if err := os.WriteFile(filepath.Join(repo, "redirect.go"), []byte("package oauth\n\nconst RedirectURI = \"https://example.com/callback/\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Gemini CLI names a transcript by the minute and the id's first eight
	// characters: the two ids differ there.
	held, kept := e2etest.HoldoutIDs("%08d-0000-4000-8000-000000000000")
	home := t.TempDir()
	run := func(id string) []string {
		// Two tool calls, one of them failed, then the answer.
		api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
			{geminitest.Shell("false")},
			{geminitest.Call("read_file", map[string]any{"file_path": filepath.Join(repo, "redirect.go")})},
			{geminitest.Text("The provider compares the redirect URI byte for byte.")},
		})
		res := geminitest.Run(t, geminitest.RunOptions{CLI: cli, API: api, Dir: repo, Home: home,
			Prompt: "why does the OAuth redirect URI need the trailing slash?",
			Args:   []string{"--session-id", id},
			Env:    []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
		if res.ExitCode != 0 {
			t.Fatalf("gemini exited %d\n%s", res.ExitCode, res)
		}
		texts := api.MainRequestTexts()
		if len(texts) != 3 {
			t.Fatalf("%d main requests, want 3 (the prompt and two tool results)\n%s", len(texts), res)
		}
		return texts
	}
	for i, text := range run(held) {
		for _, cairn := range []string{geminiWrapOpen, "OAuth redirect URI must match", "database migrations"} {
			if strings.Contains(text, cairn) {
				t.Errorf("request %d of the holdout session carries cairn context %q:\n%.3000s", i, cairn, text)
			}
		}
	}
	// The kept session's first request carries the session start's block
	// and, after the prompt, the prompt's note, each wrapped.
	first := run(kept)[0]
	if start := geminiWrapped(t, first); !strings.Contains(start, "database migrations") {
		t.Errorf("the kept session's first wrapper lacks the must-check entry:\n%s", start)
	}
	prompt := strings.Index(first, "why does the OAuth redirect URI")
	if prompt < 0 {
		t.Fatalf("no prompt in the kept session's first request:\n%.3000s", first)
	}
	if note := geminiWrapped(t, first[prompt:]); !strings.Contains(note, "OAuth redirect URI must match") {
		t.Errorf("the kept session's prompt brought no note, wrapped:\n%s", note)
	}

	// Gemini CLI wrote one transcript per session, under the id it was
	// given.
	chats, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "*.jsonl"))
	if len(chats) != 2 {
		t.Fatalf("transcripts %v, want two", chats)
	}
	named := map[string]bool{}
	for _, c := range chats {
		text, n := string(cairntest.MustRead(t, c)), 0
		for _, id := range []string{held, kept} {
			if strings.Contains(text, `"sessionId":"`+id+`"`) {
				named[id] = true
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s names %d of the sessions %s and %s, want one", c, n, held, kept)
		}
	}
	if len(named) != 2 {
		t.Errorf("the transcripts name %v, want %s and %s", named, held, kept)
	}

	r, out := e2etest.RunReport(t, repo, append(os.Environ(), testenv.Home(home)...), "--agent", "gemini", "--since", "0")
	if len(r.Agents) != 1 || r.Agents[0].Agent != "gemini" || r.Agents[0].With != 1 || r.Agents[0].Without != 1 || r.Skipped != 0 {
		t.Fatalf("cairn report counted %+v (%d skipped), want one Gemini CLI session with recall and one without\n%s", r.Agents, r.Skipped, out)
	}
	// One session per group: each group's median is that session's figure.
	want := map[string]float64{"tool_calls": 2, "failed_tool_calls": 1, "turns": 1}
	seen := map[string]bool{}
	for _, f := range r.Agents[0].Figures {
		seen[f.Name] = true
		if w, ok := want[f.Name]; ok && (f.With.N != 1 || f.Without.N != 1 || f.With.Median != w || f.Without.Median != w) {
			t.Errorf("%s: with recall %+v, without %+v; want one session each at %v", f.Name, f.With, f.Without, w)
		}
		switch {
		case f.Name == agent.FigureCompactions && f.NotRecordedBy != "Gemini CLI":
			t.Errorf("compactions are not marked not recorded by Gemini CLI: %q", f.NotRecordedBy)
		case f.Name != agent.FigureCompactions && f.NotRecordedBy != "":
			t.Errorf("%s is marked not recorded by %q", f.Name, f.NotRecordedBy)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("the report has no %s figure\n%s", name, out)
		}
	}
	if !seen[agent.FigureCompactions] {
		t.Errorf("the report has no %s figure\n%s", agent.FigureCompactions, out)
	}
}

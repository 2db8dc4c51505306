package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// With the real Claude Code and a holdout share of 0.5: a session whose
// id the share holds out sends the model no cairn context at all (no
// session-start block, no prompt notes), a session it keeps does, and
// cairn report counts one session in each group from the real
// transcripts.
func TestClaudeHoldoutAndReport(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	e2etest.HoldoutProject(t, repo)
	held, kept := e2etest.HoldoutIDs("00000000-0000-4000-8000-%012d")
	home := t.TempDir()
	run := func(id string) []string {
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Home: home,
			Prompt:       "why does the OAuth redirect URI need the trailing slash?",
			AllowedTools: []string{"Bash"}, PluginDirs: []string{cairntest.RepoRoot(t)},
			Args: []string{"--session-id", id}, Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
		if res.ExitCode != 0 {
			t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
		}
		texts := api.MainRequestTexts()
		if len(texts) == 0 {
			t.Fatal("no request reached the fake model")
		}
		return texts
	}
	for _, text := range run(held) {
		for _, cairn := range []string{recall.OpenTag, "OAuth redirect URI must match", "database migrations"} {
			if strings.Contains(text, cairn) {
				t.Errorf("a holdout session's request carries cairn context %q:\n%.3000s", cairn, text)
			}
		}
	}
	texts := run(kept)
	if !strings.Contains(texts[0], recall.OpenTag) || !strings.Contains(texts[0], "database migrations") {
		t.Errorf("a kept session's first request carries no cairn context:\n%.3000s", texts[0])
	}

	env := append(os.Environ(), "HOME="+home)
	r, out := e2etest.RunReport(t, repo, env, "--since", "0")
	if len(r.Agents) != 1 || r.Agents[0].Agent != "claude" || r.Agents[0].With != 1 || r.Agents[0].Without != 1 {
		t.Fatalf("cairn report counted %+v, want one Claude Code session with recall and one without\n%s", r.Agents, out)
	}
	text := exec.Command(cairntest.Binary(t), "report", "--since", "0")
	text.Dir, text.Env = repo, env
	if out, err := text.Output(); err != nil || !strings.Contains(string(out), "not enough sessions yet (1 with, 1 without; need at least 10)") {
		t.Errorf("cairn report (%v):\n%s", err, out)
	}
}

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// TestClaudeTeammates: A wires the project with `cairn init --claude`,
// records knowledge in a session, commits and pushes. B (another HOME and
// checkout path, cairn on PATH, no install step for this repository)
// pulls, and B's first model request carries A's knowledge, wrapped. C (no
// cairn at all) starts a session that succeeds and carries the notice of
// how to install cairn. With the personal plugin loaded as well as the
// project wiring, each entry is injected once and captured once. Nothing
// committed names A's machine.
func TestClaudeTeammates(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	cairntest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	seed := claudetest.NewGitRepo(t)
	cairntest.Git(t, seed, "remote", "add", "origin", remote)
	cairntest.Git(t, seed, "push", "-q", "origin", "main")

	a := e2etest.NewTeammate(t, remote, true)
	cmd := exec.Command(a.Cairn(t), "init", "--claude")
	cmd.Dir, cmd.Env = a.Dir, append(os.Environ(), a.Env...)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "git add .cairn .claude") {
		t.Fatalf("cairn init --claude: %v\n%s", err, out)
	}
	const fact = "the payment retry budget is three attempts with jitter"
	apiA := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("Done.\nLEARNED: " + fact)}})
	a.Session(t, cli, apiA, "fix the payment retries", false)
	if !strings.Contains(string(cairntest.MustRead(t, filepath.Join(a.Dir, ".cairn", "knowledge.jsonl"))), fact) {
		t.Fatalf("A's session did not capture the typed line through the project wiring")
	}
	cairntest.Git(t, a.Dir, "add", ".cairn", ".claude")
	cairntest.Git(t, a.Dir, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "Add cairn team memory")
	cairntest.Git(t, a.Dir, "push", "-q", "origin", "main")

	// Nothing committed names A's machine.
	for _, f := range strings.Fields(cairntest.Git(t, a.Dir, "ls-files")) {
		data := string(cairntest.MustRead(t, filepath.Join(a.Dir, f)))
		for _, local := range []string{a.Home, a.Dir, cairntest.Binary(t), cairntest.RepoRoot(t)} {
			if strings.Contains(data, local) {
				t.Errorf("committed %s names %s of A's machine", f, local)
			}
		}
	}

	t.Run("B pulls and gets the memory", func(t *testing.T) {
		b := e2etest.NewTeammate(t, remote, true)
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		b.Session(t, cli, api, "work on the payment retry budget", false)
		ctx := e2etest.Injected(t, api)
		if !strings.Contains(ctx, "<untrusted-knowledge") || !strings.Contains(ctx, fact) {
			t.Errorf("B's first request does not carry A's knowledge, wrapped:\n%.3000s", ctx)
		}
	})

	t.Run("B runs /recall by that name", func(t *testing.T) {
		b := e2etest.NewTeammate(t, remote, true)
		cmd := `"$(git rev-parse --show-toplevel)"/.cairn/hook recall --limit 15 payment retry`
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
			{claudetest.ToolUse("toolu_01", "Bash", map[string]any{"command": cmd})},
			{claudetest.Text("The budget is three attempts.")},
		})
		b.Session(t, cli, api, "/recall payment retry", false)
		texts := api.MainRequestTexts()
		if len(texts) < 2 {
			t.Fatalf("%d requests; want the command's and the tool result's", len(texts))
		}
		if !strings.Contains(texts[0], "Search the team's shared knowledge log for: payment retry") {
			t.Errorf("/recall did not expand to the project's command:\n%.2000s", texts[0])
		}
		// recall prints an entry's key (the injections do not): the tool
		// result, not an injection, carries it.
		if strings.Contains(texts[0], "learned-the-payment-retry-budget") || !strings.Contains(texts[1], "learned-the-payment-retry-budget") {
			t.Errorf("the launcher's recall did not return A's entry to the model:\n%.3000s", texts[1])
		}
	})

	t.Run("C without cairn is told", func(t *testing.T) {
		c := e2etest.NewTeammate(t, remote, false)
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		c.Session(t, cli, api, "work on the payment retry budget", false)
		texts := api.MainRequestTexts()
		// The model hears cairn's fixed wording; the install route is
		// the person's (systemMessage), never the model's.
		if len(texts) == 0 || !strings.Contains(texts[0], "cairn is not installed on this machine") || !strings.Contains(texts[0], cairn.ModelInstallNotice) {
			t.Errorf("C's first request does not carry the notice:\n%.3000s", strings.Join(texts, "\n"))
		}
		if strings.Contains(strings.Join(texts, "\n"), cairn.NoRouteHint) {
			t.Errorf("the install route reached the model:\n%.3000s", strings.Join(texts, "\n"))
		}
		if strings.Contains(strings.Join(texts, "\n"), fact) {
			t.Error("C got knowledge without cairn?")
		}
	})

	t.Run("plugin and project wiring at once", func(t *testing.T) {
		b := e2etest.NewTeammate(t, remote, true)
		const again = "the refund queue drains every five minutes"
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("Done.\nLEARNED: " + again)}})
		b.Session(t, cli, api, "work on the payment retry budget", true)
		first := api.MainRequestTexts()[0]
		// SessionStart ran once: its how-to is there once. The prompt's
		// recall ran once: one block, the entry in it once.
		if n := strings.Count(first, "To record knowledge for the team"); n != 1 {
			t.Errorf("SessionStart's how-to is there %d times, want once (both wirings ran?)", n)
		}
		if n := strings.Count(first, "<untrusted-knowledge"); n != 1 {
			t.Errorf("%d injection blocks, want one", n)
		}
		if n := strings.Count(first, fact); n != 1 {
			t.Errorf("the entry was injected %d times, want once", n)
		}
		log := string(cairntest.MustRead(t, filepath.Join(b.Dir, ".cairn", "knowledge.jsonl")))
		if n := strings.Count(log, again); n != 1 {
			t.Errorf("the reply's typed line is in the log %d times, want once", n)
		}
		if b, _ := os.ReadFile(filepath.Join(b.Dir, ".cairn", "cache", "cairn.log")); strings.Count(string(b), "Stop captured") != 1 {
			t.Errorf("Stop captured other than once:\n%s", b)
		}
	})
}

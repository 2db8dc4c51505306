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
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// teammate is one developer: a HOME, a checkout, and a PATH that has
// cairn on it or not.
type teammate struct {
	home, dir string
	env       []string
}

// newTeammate clones remote into a checkout of its own under a HOME of its
// own. With withCairn, a directory holding the cairn binary (named cairn)
// is on PATH, as after go install; without, there is no cairn at all.
func newTeammate(t *testing.T, remote string, withCairn bool) teammate {
	t.Helper()
	tm := teammate{home: t.TempDir(), dir: filepath.Join(t.TempDir(), "work", "project")}
	path := "/usr/local/bin:/usr/bin:/bin"
	if withCairn {
		bin := filepath.Join(tm.home, "go", "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(cairntest.Binary(t), filepath.Join(bin, "cairn")); err != nil {
			t.Fatal(err)
		}
		path = bin + ":" + path
	}
	tm.env = append(testenv.Home(tm.home), "PATH="+path, "CAIRN_BIN=", "CAIRN_NO_BACKGROUND=1", "GOPATH="+filepath.Join(tm.home, "go"))
	if err := os.MkdirAll(filepath.Dir(tm.dir), 0o755); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, filepath.Dir(tm.dir), "clone", "-q", remote, tm.dir)
	return tm
}

// cairn is the teammate's own cairn, the one on their PATH.
func (tm teammate) cairn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tm.home, "go", "bin", "cairn")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("this teammate has no cairn: %v", err)
	}
	return bin
}

// session runs one Claude Code session of the teammate's, with the
// project's own wiring only (no plugin), unless plugin is set.
func (tm teammate) session(t *testing.T, cli string, api *claudetest.FakeAPI, prompt string, plugin bool) {
	t.Helper()
	opts := claudetest.RunOptions{CLI: cli, API: api, Dir: tm.dir, Home: tm.home, Prompt: prompt, Env: tm.env}
	if plugin {
		opts.PluginDirs = []string{cairntest.RepoRoot(t)}
	}
	res := claudetest.Run(t, opts)
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
}

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

	a := newTeammate(t, remote, true)
	cmd := exec.Command(a.cairn(t), "init", "--claude")
	cmd.Dir, cmd.Env = a.dir, append(os.Environ(), a.env...)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "git add .cairn .claude") {
		t.Fatalf("cairn init --claude: %v\n%s", err, out)
	}
	const fact = "the payment retry budget is three attempts with jitter"
	apiA := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("Done.\nLEARNED: " + fact)}})
	a.session(t, cli, apiA, "fix the payment retries", false)
	if !strings.Contains(string(cairntest.MustRead(t, filepath.Join(a.dir, ".cairn", "knowledge.jsonl"))), fact) {
		t.Fatalf("A's session did not capture the typed line through the project wiring")
	}
	cairntest.Git(t, a.dir, "add", ".cairn", ".claude")
	cairntest.Git(t, a.dir, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "Add cairn team memory")
	cairntest.Git(t, a.dir, "push", "-q", "origin", "main")

	// Nothing committed names A's machine.
	for _, f := range strings.Fields(cairntest.Git(t, a.dir, "ls-files")) {
		data := string(cairntest.MustRead(t, filepath.Join(a.dir, f)))
		for _, local := range []string{a.home, a.dir, cairntest.Binary(t), cairntest.RepoRoot(t)} {
			if strings.Contains(data, local) {
				t.Errorf("committed %s names %s of A's machine", f, local)
			}
		}
	}

	t.Run("B pulls and gets the memory", func(t *testing.T) {
		b := newTeammate(t, remote, true)
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		b.session(t, cli, api, "work on the payment retry budget", false)
		ctx := injected(t, api)
		if !strings.Contains(ctx, "<untrusted-knowledge") || !strings.Contains(ctx, fact) {
			t.Errorf("B's first request does not carry A's knowledge, wrapped:\n%.3000s", ctx)
		}
	})

	t.Run("B runs /recall by that name", func(t *testing.T) {
		b := newTeammate(t, remote, true)
		cmd := `"$(git rev-parse --show-toplevel)"/.cairn/hook recall --limit 15 payment retry`
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
			{claudetest.ToolUse("toolu_01", "Bash", map[string]any{"command": cmd})},
			{claudetest.Text("The budget is three attempts.")},
		})
		b.session(t, cli, api, "/recall payment retry", false)
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
		c := newTeammate(t, remote, false)
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		c.session(t, cli, api, "work on the payment retry budget", false)
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
		b := newTeammate(t, remote, true)
		const again = "the refund queue drains every five minutes"
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("Done.\nLEARNED: " + again)}})
		b.session(t, cli, api, "work on the payment retry budget", true)
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
		log := string(cairntest.MustRead(t, filepath.Join(b.dir, ".cairn", "knowledge.jsonl")))
		if n := strings.Count(log, again); n != 1 {
			t.Errorf("the reply's typed line is in the log %d times, want once", n)
		}
		if b, _ := os.ReadFile(filepath.Join(b.dir, ".cairn", "cache", "cairn.log")); strings.Count(string(b), "Stop captured") != 1 {
			t.Errorf("Stop captured other than once:\n%s", b)
		}
	})
}

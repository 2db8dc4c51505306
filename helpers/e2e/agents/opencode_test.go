package agents

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
	"github.com/cairn-dev/cairn/helpers/internal/testharness/opencodetest"
)

// These tests run the real OpenCode CLI (`opencode run`, pinned by
// opencodetest.Version) against a fake OpenAI-compatible chat completions
// API on loopback, in projects wired by `cairn init --opencode`: OpenCode
// loads the committed plugin (.opencode/plugins/cairn.js), which runs the
// committed launcher. Without the CLI they skip (and fail under CI=true):
// see opencodetest.FindCLI.

// opencodeSession runs one OpenCode session of the teammate's.
func opencodeSession(t *testing.T, tm e2etest.Teammate, cli string, api *opencodetest.FakeAPI, prompt string) opencodetest.Result {
	t.Helper()
	res := opencodetest.Run(t, opencodetest.RunOptions{CLI: cli, API: api, Dir: tm.Dir, Home: tm.Home, Prompt: prompt, Env: tm.Env})
	if res.ExitCode != 0 {
		t.Fatalf("opencode exited %d\n%s", res.ExitCode, res)
	}
	return res
}

// firstSystem is the system prompt of the session's first main request,
// where the plugin puts what cairn recalled; no side request (OpenCode's
// title generation) may carry team memory.
func firstSystem(t *testing.T, api *opencodetest.FakeAPI, res opencodetest.Result) string {
	t.Helper()
	main := api.MainRequests()
	if len(main) == 0 {
		t.Fatalf("no request reached the fake model\n%s", res)
	}
	for _, r := range api.Requests() {
		if r.Side && strings.Contains(r.Text(), "<untrusted-knowledge") {
			t.Errorf("a side request (title) carries team memory:\n%.2000s", r.Text())
		}
	}
	return main[0].System()
}

// wrapped is what the system prompt holds inside the untrusted wrapper.
func wrapped(t *testing.T, system string) string {
	t.Helper()
	open := strings.Index(system, "<untrusted-knowledge")
	end := strings.LastIndex(system, "</untrusted-knowledge>")
	if open < 0 || end < open {
		t.Fatalf("no untrusted wrapper in the system prompt:\n%.4000s", system)
	}
	return system[open:end]
}

// initIn runs the teammate's own cairn (on PATH) in the checkout.
func initIn(t *testing.T, tm e2etest.Teammate, flags ...string) string {
	t.Helper()
	cmd := exec.Command(tm.Cairn(t), append([]string{"init"}, flags...)...)
	cmd.Dir, cmd.Env = tm.Dir, append(os.Environ(), tm.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cairn init %s: %v\n%s", strings.Join(flags, " "), err, out)
	}
	return string(out)
}

// A relevant entry and a must-check reach OpenCode's first model request,
// in its system prompt, inside the untrusted wrapper, with the lines that
// say how to record; an irrelevant entry does not.
func TestOpenCodeSessionStartInjectsRelevant(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := opencodetest.FindCLI(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	cairntest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	seed := claudetest.NewGitRepo(t)
	cairntest.Git(t, seed, "remote", "add", "origin", remote)
	cairntest.Git(t, seed, "push", "-q", "origin", "main")
	a := e2etest.NewTeammate(t, remote, true)
	cairntest.Git(t, a.Dir, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	initIn(t, a, "--opencode")
	cairntest.In(t, a.Dir, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, a.Dir, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	cairntest.In(t, a.Dir, "add", "must-check", "Run the database migrations before deploying the API")

	api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{{opencodetest.Text("ok")}})
	res := opencodeSession(t, a, cli, api, "fix the redirect bug")
	system := firstSystem(t, api, res)
	e2etest.CheckStartContext(t, system)
	if !strings.Contains(system, "MUST-CHECK:") || !strings.Contains(system, "cairn add") {
		t.Errorf("no how-to-record lines:\n%s", system)
	}
	if user := main0User(api); strings.Contains(user, "untrusted-knowledge") {
		t.Errorf("team memory went into the person's message, not the system prompt:\n%s", user)
	}
}

// main0User is the non-system text of the first main request.
func main0User(api *opencodetest.FakeAPI) string {
	main := api.MainRequests()
	if len(main) == 0 {
		return ""
	}
	return strings.Replace(main[0].Text(), main[0].System(), "", 1)
}

// TestOpenCodeTeammates: A wires the project for OpenCode and Claude Code
// (`cairn init --opencode --claude`) and works in OpenCode: the model runs
// `bd comments add ... "MUST-CHECK: ..."` in the bash tool (bd is absent,
// so the command fails), writes an INVESTIGATION: between tool calls, hands
// a task to a subagent (OpenCode's task tool: a session of its own) that
// reports an INVESTIGATION:, and ends with a reply holding a line of every
// other type; all land in the log with OpenCode's session ids, a line in a
// code fence does not. A commits and pushes, naming nothing of A's machine.
// B pulls and works in Claude Code: B's first request carries what A
// captured in OpenCode. D pulls and works in OpenCode: the same. C has no
// cairn: C's OpenCode session succeeds and carries the notice of how to
// install it.
func TestOpenCodeTeammates(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := opencodetest.FindCLI(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	cairntest.Git(t, filepath.Dir(remote), "init", "-q", "--bare", "-b", "main", remote)
	seed := claudetest.NewGitRepo(t)
	cairntest.Git(t, seed, "remote", "add", "origin", remote)
	cairntest.Git(t, seed, "push", "-q", "origin", "main")

	a := e2etest.NewTeammate(t, remote, true)
	if out := initIn(t, a, "--opencode", "--claude"); !strings.Contains(out, "git add .cairn .claude .opencode/plugins/cairn.js") {
		t.Fatalf("cairn init --opencode --claude does not say what to commit:\n%s", out)
	}
	const (
		mustCheck     = "run the payment migrations dry-run before deploying"
		investigation = "the retry loop ignored the jitter setting"
		decision      = "Keep payment retry settings in config/retry.toml so staging and prod cannot drift"
		// A subagent (OpenCode's task tool) runs a session of its own.
		subagentFinding = "TestRedirect is flaky because buildQuery iterates a map in random order"
	)
	// The final reply carries every other type too: all seven reach the
	// log from OpenCode (Lavra's OpenCode port lost MUST-CHECK:).
	others := map[string]string{
		"learned":    "the payment sandbox rejects amounts below one cent",
		"fact":       "the retry worker runs every thirty seconds",
		"pattern":    "every payment provider gets a table-driven retry test",
		"deviation":  "kept the legacy retry endpoint alive for the mobile app",
		"must-check": "confirm the payment webhook secret is rotated after deploys",
	}
	replyLines := ""
	for _, typ := range []string{"learned", "fact", "pattern", "deviation", "must-check"} {
		replyLines += strings.ToUpper(typ) + ": " + others[typ] + "\n"
	}
	api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{
		{opencodetest.Text("Checking the migrations first.\nINVESTIGATION: " + investigation),
			opencodetest.Bash("call_1", `bd comments add bd-7 "MUST-CHECK: `+mustCheck+`"`)},
		{opencodetest.ToolCall("call_2", "task", map[string]any{
			"description": "investigate flaky test", "prompt": "Find why TestRedirect is flaky", "subagent_type": "general"})},
		{opencodetest.Text("Root cause found.\nINVESTIGATION: " + subagentFinding)},
		{opencodetest.Text("Done.\n\nDECISION: " + decision + ".\n" + replyLines + "\n```\nLEARNED: this one is inside a code fence\n```")},
	})
	res := opencodeSession(t, a, cli, api, "fix the payment retries and record what you learn")

	entries := e2etest.LogEntries(t, a.Dir)
	mc := e2etest.FindEntry(entries, "must-check", mustCheck)
	if mc == nil {
		t.Fatalf("the bash tool's bd comments add MUST-CHECK: was not captured; log: %+v\n%s", entries, res)
	}
	if mc.Bead != "bd-7" || !strings.HasPrefix(mc.Session, "ses_") {
		t.Errorf("captured entry lacks its bead or OpenCode's session id: %+v", mc)
	}
	if e2etest.FindEntry(entries, "investigation", investigation) == nil {
		t.Errorf("the INVESTIGATION: written between tool calls was not captured: %+v", entries)
	}
	if d := e2etest.FindEntry(entries, "decision", decision); d == nil || d.Session != mc.Session {
		t.Errorf("the final reply's DECISION: was not captured with the session: %+v", entries)
	}
	for typ, content := range others {
		if e := e2etest.FindEntry(entries, typ, content); e == nil || e.Session != mc.Session {
			t.Errorf("the final reply's %s line was not captured with the session: %+v", typ, e)
		}
	}
	if e2etest.FindEntry(entries, "learned", "inside a code fence") != nil {
		t.Errorf("a typed line inside a code fence was captured")
	}
	if sub := e2etest.FindEntry(entries, "investigation", subagentFinding); sub == nil || !strings.HasPrefix(sub.Session, "ses_") || sub.Session == mc.Session {
		t.Errorf("the subagent's INVESTIGATION: was not captured with its own session: %+v", sub)
	}

	cairntest.Git(t, a.Dir, "add", ".cairn", ".claude", ".opencode/plugins/cairn.js")
	cairntest.Git(t, a.Dir, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "Add cairn team memory")
	cairntest.Git(t, a.Dir, "push", "-q", "origin", "main")
	for _, f := range strings.Fields(cairntest.Git(t, a.Dir, "ls-files")) {
		data := string(cairntest.MustRead(t, filepath.Join(a.Dir, f)))
		for _, local := range []string{a.Home, a.Dir, cairntest.Binary(t), cli} {
			if strings.Contains(data, local) {
				t.Errorf("committed %s names %s of A's machine", f, local)
			}
		}
	}

	t.Run("B recalls in Claude Code what A captured in OpenCode", func(t *testing.T) {
		claudeCLI := claudetest.FindCLI(t)
		b := e2etest.NewTeammate(t, remote, true)
		api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
		b.Session(t, claudeCLI, api, "work on the payment retry deploy", false)
		ctx := e2etest.Injected(t, api)
		if !strings.Contains(ctx, "<untrusted-knowledge") || !strings.Contains(ctx, mustCheck) {
			t.Errorf("B's first Claude Code request does not carry A's OpenCode capture, wrapped:\n%.3000s", ctx)
		}
	})

	t.Run("D recalls in OpenCode", func(t *testing.T) {
		d := e2etest.NewTeammate(t, remote, true)
		api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{{opencodetest.Text("ok")}})
		res := opencodeSession(t, d, cli, api, "work on the payment retry settings")
		inside := wrapped(t, firstSystem(t, api, res))
		if !strings.Contains(inside, mustCheck) || !strings.Contains(inside, "config/retry.toml") {
			t.Errorf("D's first OpenCode request does not carry A's knowledge, wrapped:\n%s", inside)
		}
	})

	t.Run("C without cairn is told", func(t *testing.T) {
		c := e2etest.NewTeammate(t, remote, false)
		api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{{opencodetest.Text("ok")}})
		res := opencodeSession(t, c, cli, api, "work on the payment retry budget")
		system := firstSystem(t, api, res)
		if !strings.Contains(system, "cairn is not installed on this machine") || !strings.Contains(system, cairn.ModelInstallNotice) {
			t.Errorf("C's first request does not carry the notice:\n%.3000s", system)
		}
		if strings.Contains(system, cairn.NoRouteHint) {
			t.Errorf("the install route reached the model:\n%.3000s", system)
		}
		if strings.Contains(system, mustCheck) {
			t.Errorf("C without cairn got team memory:\n%.3000s", system)
		}
	})
}

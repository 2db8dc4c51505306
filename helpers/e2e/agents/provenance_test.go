package agents

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/codextest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/geminitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/opencodetest"
)

// Issue 26: the `cairn add` an agent runs in its own shell tool is
// recorded as the agent's, with the session it runs in: the same session
// id the hooks capture the session's typed lines with. Each runs the real
// client against the fake model; the model runs cairn add, then replies
// with a typed line. The command first removes the record of the session
// start (the fallback for agents whose environment names no session), so
// the session can only come from the environment.

const (
	agentAdded = "the retry budget lives in config/retry.toml"
	hookAdded  = "the payment sandbox rejects amounts below one cent"
	// forgetStart removes what the session start recorded of the session.
	// (Codex refuses rm -rf.)
	forgetStart = "mv .cairn/local/started .cairn/local/forgotten; "
)

// wiredTeammate is a teammate with cairn on PATH, in a clone whose
// project `cairn init FLAG` wired.
func wiredTeammate(t *testing.T, flag string) e2etest.Teammate {
	t.Helper()
	remote := t.TempDir() + "/remote.git"
	seed := claudetest.NewGitRepo(t)
	cairntest.Git(t, seed, "init", "-q", "--bare", "-b", "main", remote)
	cairntest.Git(t, seed, "remote", "add", "origin", remote)
	cairntest.Git(t, seed, "push", "-q", "origin", "main")
	tm := e2etest.NewTeammate(t, remote, true)
	initIn(t, tm, flag)
	return tm
}

func TestClaudeAgentAddIsTheAgents(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	a := wiredTeammate(t, "--claude")
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		{claudetest.ToolUse("toolu_01", "Bash", map[string]any{
			"command": forgetStart + `cairn add fact "` + agentAdded + `"`, "description": "record a fact"})},
		{claudetest.Text("Done.\nLEARNED: " + hookAdded)},
	})
	a.Session(t, cli, api, "record what you learn", false)
	checkAgentAdd(t, e2etest.LogEntries(t, a.Dir), "claude")
}

func TestOpenCodeAgentAddIsTheAgents(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := opencodetest.FindCLI(t)
	a := wiredTeammate(t, "--opencode")
	api := opencodetest.StartFakeAPI(t, [][]opencodetest.Block{
		{opencodetest.Bash("call_1", forgetStart+`cairn add fact "`+agentAdded+`"`)},
		{opencodetest.Text("Done.\nLEARNED: " + hookAdded)},
	})
	opencodeSession(t, a, cli, api, "record what you learn")
	checkAgentAdd(t, e2etest.LogEntries(t, a.Dir), "opencode")
}

func TestCodexAgentAddIsTheAgents(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.In(t, repo, "init", "--codex")
	api := codextest.StartFakeAPI(t, [][]codextest.Item{
		{codextest.Shell("call_1", forgetStart+`"$CAIRN_BIN" add fact "`+agentAdded+`"`)},
		{codextest.Text("Done.\nLEARNED: " + hookAdded)},
	})
	codexSession(t, repo, repo, api, "record what you learn")
	checkAgentAdd(t, e2etest.LogEntries(t, repo), "codex")
}

// Gemini CLI's shell tool names no session: the one its SessionStart hook
// recorded is.
func TestGeminiAgentAddIsTheAgents(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := geminitest.FindCLI(t)
	repo := geminiRepo(t)
	api := geminitest.StartFakeAPI(t, [][]geminitest.Part{
		{geminitest.Shell(`"$CAIRN_BIN" add fact "` + agentAdded + `"`)},
		{geminitest.Text("Done.\nLEARNED: " + hookAdded)},
	})
	geminiSession(t, cli, repo, api, "record what you learn")
	checkAgentAdd(t, e2etest.LogEntries(t, repo), "gemini")
}

// checkAgentAdd checks that the entry the agent added is its own, with
// the session its hooks name.
func checkAgentAdd(t *testing.T, entries []knowledge.Entry, agent string) {
	t.Helper()
	added := e2etest.FindEntry(entries, "fact", agentAdded)
	captured := e2etest.FindEntry(entries, "learned", hookAdded)
	if added == nil || captured == nil {
		t.Fatalf("the agent's cairn add or its typed line is missing: %+v", entries)
	}
	if added.Source != "agent" || added.Agent != agent || added.Session == "" || added.Session != captured.Session {
		t.Errorf("cairn add by %s = source %q, agent %q, session %q; the hooks' session is %q", agent, added.Source, added.Agent, added.Session, captured.Session)
	}
	if strings.Contains(added.Session, "\n") {
		t.Errorf("session %q", added.Session)
	}
}

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// cairn log lists what a real Claude Code session start injected: the
// session, the agent, the branch, the moment, each key with why it was
// chosen, and with --show the very text the model received.
func TestClaudeLogShowsSessionStart(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	relevant := strings.TrimSpace(cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash"))
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	must := strings.TrimSpace(cairntest.In(t, repo, "add", "must-check", "Run the database migrations before deploying the API"))
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	e2etest.ClaudeSession(t, cli, repo, api, "fix the redirect bug", true)
	ctx := e2etest.Injected(t, api)

	var list []struct {
		Agent, Session, Branch, Moment, Text string
		Budget, Used                         int
		Entries                              []struct{ Key, Reason string }
	}
	if err := json.Unmarshal([]byte(cairntest.In(t, repo, "log", "--json", "--show")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("cairn log lists %d injections, want the session start's: %+v", len(list), list)
	}
	in := list[0]
	if in.Agent != "claude" || in.Moment != "session start" || in.Branch != "fix/oauth-trailing-slash" || in.Session == "" {
		t.Errorf("recorded as agent %q, moment %q, branch %q, session %q", in.Agent, in.Moment, in.Branch, in.Session)
	}
	// --json passes every string through the terminal filter, which shows
	// a line break as ⏎ (untrusted.Newline).
	sent := strings.ReplaceAll(in.Text, untrusted.Newline, "\n")
	if sent == "" || !strings.Contains(ctx, sent) {
		t.Errorf("the recorded text is not what the model received:\nrecorded:\n%s\nreceived:\n%s", in.Text, ctx)
	}
	if in.Used == 0 || in.Used > in.Budget {
		t.Errorf("used %d of %d", in.Used, in.Budget)
	}
	why := map[string]string{}
	for _, e := range in.Entries {
		why[e.Key] = e.Reason
	}
	if why[must] != "must-check" || !strings.Contains(why[relevant], "branch") || len(why) != 2 {
		t.Errorf("entries and reasons: %v (want %s: must-check, %s: branch)", why, must, relevant)
	}
	text := cairntest.In(t, repo, "log", "--show")
	_, shown, _ := strings.Cut(text, "--- the text injected ---\n")
	shown, _, _ = strings.Cut(shown, "\n  --- end ---")
	if !strings.Contains(text, "  claude  session "+in.Session+"  branch fix/oauth-trailing-slash  session start  ") || shown == "" || !strings.Contains(ctx, shown) {
		t.Errorf("cairn log --show:\n%s", text)
	}
}

package session_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

// heldRepo is a repository on a payments branch with one file, and notes
// relevant to the branch: one anchored to the file, one anchored to a
// file that is gone, one on nothing, and a must-check anchored to the
// file's directory.
func heldRepo(t *testing.T) (string, map[string]knowledge.Entry) {
	t.Helper()
	dir, _ := repo(t)
	cmd := exec.Command("git", "checkout", "-q", "-b", "fix/payments-retry")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git checkout: %v\n%s", err, out)
	}
	if err := os.MkdirAll(filepath.Join(dir, "payments"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "payments", "client.go"), []byte("package payments\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := func(typ, content string, files ...string) knowledge.Entry {
		return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, TS: 1700000000, Files: files}
	}
	es := map[string]knowledge.Entry{
		"anchored": mk("learned", "The payments retry loop must watch the request context", "payments/client.go"),
		"gone":     mk("learned", "The payments retry backoff used to live in the legacy client", "payments/legacy.go"),
		"plain":    mk("fact", "Payments retry budgets are three attempts per request"),
		"must":     mk("must-check", "Payments retry changes need the contract tests", "payments"),
	}
	var all []knowledge.Entry
	for _, en := range es {
		all = append(all, en)
	}
	if _, err := knowledge.Open(dir).Insert(all); err != nil {
		t.Fatal(err)
	}
	return dir, es
}

// For an agent with a moment before a tool (Claude Code), the session
// start leaves out the notes anchored to files that exist, cairn log says
// they were held and the status line counts them; the read of the file
// brings them, once. Must-checks, notes on nothing and notes on gone
// files stay at the start. A prompt whose own words match a held note
// brings it (a question the team answered), and the read does not repeat
// it.
func TestStartHoldsAnchoredNotesForTool(t *testing.T) {
	dir, es := heldRepo(t)
	e := env(dir)
	start, _ := claudeCall(t, e, "SessionStart", map[string]any{"session_id": "s1", "cwd": dir, "source": "startup"})
	ctx := start.HookSpecificOutput.AdditionalContext
	for _, k := range []string{"gone", "plain", "must"} {
		if !strings.Contains(ctx, es[k].Content) {
			t.Errorf("the session start lacks the %s note:\n%s", k, ctx)
		}
	}
	if strings.Contains(ctx, es["anchored"].Content) {
		t.Fatalf("the session start carries the note anchored to an existing file:\n%s", ctx)
	}
	list, err := recall.Injections(knowledge.Open(dir))
	if err != nil || len(list) != 1 || !slices.Equal(list[0].Held, []string{es["anchored"].Key}) {
		t.Fatalf("the start's record says held %+v (%v)", list, err)
	}

	if want := "; 1 held for their files"; !strings.HasSuffix(start.SystemMessage, want) {
		t.Errorf("the status line %q does not end with %q", start.SystemMessage, want)
	}

	p, _ := claudeCall(t, e, "UserPromptSubmit", map[string]any{"session_id": "q1", "cwd": dir, "prompt": "does the payments retry loop watch the request context?"})
	if strings.Count(p.HookSpecificOutput.AdditionalContext, es["anchored"].Content) != 1 {
		t.Errorf("a question whose words match the held note did not bring it:\n%s", p.HookSpecificOutput.AdditionalContext)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "q1", "Read", map[string]any{"file_path": filepath.Join(dir, "payments/client.go")})); strings.Contains(out, es["anchored"].Content) {
		t.Errorf("the read repeated the note the prompt brought: %s", out)
	}

	o, _ := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Read", map[string]any{"file_path": filepath.Join(dir, "payments/client.go")}))
	tctx := o.HookSpecificOutput.AdditionalContext
	if strings.Count(tctx, es["anchored"].Content) != 1 {
		t.Fatalf("the read did not bring the held note once:\n%s", tctx)
	}
	if strings.Contains(tctx, es["plain"].Content) || strings.Contains(tctx, es["gone"].Content) {
		t.Errorf("the read brought notes not anchored to the file:\n%s", tctx)
	}
	if strings.Count(tctx, "<untrusted-knowledge") != 1 || strings.Contains(tctx, recall.ShortPreamble) {
		t.Errorf("the block before the tool is not one terse wrapper:\n%s", tctx)
	}
	if _, out := claudeCall(t, e, "PreToolUse", tool(dir, "s1", "Edit", map[string]any{"file_path": "payments/client.go"})); strings.Contains(out, es["anchored"].Content) {
		t.Errorf("a second touch repeated the note: %s", out)
	}
}

// An agent without a moment before a tool gets the anchored notes at the
// session start, and nothing is held.
func TestStartWithoutToolMomentHoldsNothing(t *testing.T) {
	dir, es := heldRepo(t)
	a := call(t, env(dir), "start", map[string]string{"cwd": dir, "session": "s1"})
	for k, en := range es {
		if !strings.Contains(a.Context, en.Content) {
			t.Errorf("the session start lacks the %s note:\n%s", k, a.Context)
		}
	}
	list, err := recall.Injections(knowledge.Open(dir))
	if err != nil || len(list) != 1 || len(list[0].Held) != 0 {
		t.Errorf("the start's record: %+v (%v)", list, err)
	}
}

// A team that sets "hold_for_tool": false in .cairn/config.json gets the
// anchored notes at the session start for every agent, as before they
// waited for the tool; a Cursor session never holds them (its moment
// after a tool is partial), whatever the config.
func TestHoldForToolTurnedOff(t *testing.T) {
	dir, es := heldRepo(t)
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "config.json"), []byte(`{"hold_for_tool": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	start, _ := claudeCall(t, env(dir), "SessionStart", map[string]any{"session_id": "s1", "cwd": dir, "source": "startup"})
	if ctx := start.HookSpecificOutput.AdditionalContext; !strings.Contains(ctx, es["anchored"].Content) {
		t.Errorf("with hold_for_tool false the session start lacks the anchored note:\n%s", ctx)
	}
	list, err := recall.Injections(knowledge.Open(dir))
	if err != nil || len(list) != 1 || len(list[0].Held) != 0 {
		t.Errorf("the start's record: %+v (%v)", list, err)
	}
}

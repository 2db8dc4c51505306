package agents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/codextest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// These tests run the real Codex CLI (codextest.Version) against a fake
// Responses API on loopback, in a repository wired with `cairn init
// --codex`, with a temporary HOME and CODEX_HOME. Without the CLI they
// skip (and fail under CI=true): see codextest.FindCLI.

// codexTrust is what a person's Codex config holds once they trusted the
// project and every hook of cairn's in it, computed by the adapter. Codex
// runs an unmanaged hook only when the hash it computes matches, so a
// session where the hooks run proves codex.Hash right.
func codexTrust(t *testing.T, project string) string {
	t.Helper()
	hooksJSON := filepath.Join(project, codex.HooksFile)
	data, err := os.ReadFile(hooksJSON)
	if err != nil {
		t.Fatal(err)
	}
	regs, missing, err := codex.Registered(data)
	if err != nil || len(missing) > 0 {
		t.Fatalf("Registered: %v %v", missing, err)
	}
	s := fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", project)
	for _, r := range regs {
		h, ok := codex.Hash(codex.EventKey(r.Event.Event), r.Matcher, r.Raw)
		if !ok {
			t.Fatalf("no hash for %s", r.Event.Event)
		}
		s += fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", codex.TrustKey(hooksJSON, r), h)
	}
	return s
}

// codexSession runs `codex exec PROMPT` in dir (the work tree root or a
// directory in it), the project wired and trusted, cairn found through
// CAIRN_BIN as the launcher finds it.
func codexSession(t *testing.T, root, dir string, api *codextest.FakeAPI, prompt string) codextest.Result {
	t.Helper()
	res := codextest.Run(t, codextest.RunOptions{
		API: api, Dir: dir, Prompt: prompt,
		ConfigExtra: codexTrust(t, root),
		Env:         []string{"CAIRN_BIN=" + cairntest.Binary(t)},
	})
	if res.ExitCode != 0 {
		t.Fatalf("codex exited %d\n%s", res.ExitCode, res)
	}
	for _, e := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		if !strings.Contains(res.Stderr, "hook: "+e+" Completed") {
			t.Errorf("the %s hook did not complete\n%s", e, res)
		}
	}
	return res
}

// codexContext returns the text of Codex's first request to the model
// (cairn's context arrives in it as developer messages).
func codexContext(t *testing.T, api *codextest.FakeAPI) string {
	t.Helper()
	texts := api.MainRequestTexts()
	if len(texts) == 0 {
		t.Fatal("no request reached the fake model")
	}
	return texts[0]
}

// doctorWiring runs `cairn doctor` with the run's CODEX_HOME and returns
// its Codex wiring line.
func doctorWiring(t *testing.T, dir, codexHome string) string {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), "--dir", dir, "doctor")
	cmd.Env = append(os.Environ(), "CODEX_HOME="+codexHome)
	out, _ := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "wiring" && (strings.Contains(line, "Codex") || strings.Contains(line, ".codex/hooks.json")) {
			return line
		}
	}
	t.Fatalf("doctor says nothing of Codex:\n%s", out)
	return ""
}

// A seeded entry relevant to the branch reaches Codex's first request
// inside the untrusted wrapper, as SessionStart context; an irrelevant one
// does not; must-check always does. Doctor sees the trust the run's
// config holds.
func TestCodexSessionStartInjectsRelevant(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	cairntest.In(t, repo, "init", "--codex")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	cairntest.In(t, repo, "add", "must-check", "Run the database migrations before deploying the API")
	api := codextest.StartFakeAPI(t, [][]codextest.Item{{codextest.Text("ok")}})
	res := codexSession(t, repo, repo, api, "fix the redirect bug")
	ctx := codexContext(t, api)
	open, close := strings.Index(ctx, "<untrusted-knowledge"), strings.Index(ctx, "</untrusted-knowledge>")
	if open < 0 || close < open {
		t.Fatalf("no untrusted wrapper in the first request:\n%.4000s", ctx)
	}
	inside := ctx[open:close]
	for _, want := range []string{"OAuth redirect URI must match exactly", "Run the database migrations before deploying"} {
		if !strings.Contains(inside, want) {
			t.Errorf("%q not inside the wrapper:\n%s", want, inside)
		}
	}
	if strings.Contains(ctx, "Kafka") {
		t.Errorf("an irrelevant entry was injected")
	}
	if !strings.Contains(ctx, "LEARNED:") || !strings.Contains(ctx, "cairn add") {
		t.Errorf("no how-to-record lines in the context")
	}
	if line := doctorWiring(t, repo, res.CodexHome()); !strings.Contains(line, "ok") || !strings.Contains(line, "you trust the project and those hooks") {
		t.Errorf("doctor: %s", line)
	}
}

// Per-prompt recall: on a branch that recalls nothing at start, a prompt
// about a recorded topic brings the entry into that turn's request.
func TestCodexPerPromptRecall(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.In(t, repo, "init", "--codex")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	api := codextest.StartFakeAPI(t, [][]codextest.Item{{codextest.Text("looking")}})
	codexSession(t, repo, repo, api, "why does the oauth redirect fail with a trailing slash?")
	req := codexContext(t, api)
	prompt := strings.Index(req, "why does the oauth redirect fail")
	entry := strings.LastIndex(req, "OAuth redirect URI must match exactly")
	if prompt < 0 || entry < prompt || !strings.Contains(req[prompt:], "<untrusted-knowledge") {
		t.Errorf("the prompt's recall is not after the prompt in the request:\n%.4000s", req)
	}
}

// Capture in Codex, run from a subdirectory: `bd comments add` run by the
// shell tool (bd is absent, so the command fails) and the final reply's
// DECISION: land in the log with Codex's session id; a clone that pulls
// the commit recalls them in a Claude Code session.
func TestCodexCaptureRecalledInClaude(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	cli := claudetest.FindCLI(t)
	origin := t.TempDir()
	cairntest.Git(t, origin, "init", "-q", "--bare", "-b", "main")
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "remote", "add", "origin", origin)
	cairntest.In(t, repo, "init", "--codex")
	sub := filepath.Join(repo, "services", "payments")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	api := codextest.StartFakeAPI(t, [][]codextest.Item{
		{codextest.Shell("call_1", `bd comments add bd-42 "LEARNED: the payment retry budget is three attempts with jitter"`)},
		{codextest.Text("Done.\n\nDECISION: Keep payment retry settings in config/retry.toml so staging and prod cannot drift.\n\n```\nLEARNED: this one is inside a code fence\n```")},
	})
	res := codexSession(t, repo, sub, api, "fix the payment retries and record what you learn")
	if !strings.Contains(res.Stderr, "hook: PostToolUse Completed") {
		t.Errorf("the PostToolUse hook did not run\n%s", res)
	}
	entries := e2etest.LogEntries(t, repo)
	learned := e2etest.FindEntry(entries, "learned", "payment retry budget is three attempts")
	if learned == nil {
		t.Fatalf("bd comments add was not captured; log: %+v\n%s", entries, res)
	}
	rollout := ""
	if paths := res.RolloutPaths(); len(paths) == 1 {
		rollout = strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
	}
	if learned.Bead != "bd-42" || learned.Session == "" || !strings.HasSuffix(rollout, learned.Session) {
		t.Errorf("captured entry lacks bead or Codex's session (rollout %s): %+v", rollout, learned)
	}
	decision := e2etest.FindEntry(entries, "decision", "config/retry.toml")
	if decision == nil || decision.Session != learned.Session {
		t.Errorf("final reply DECISION: not captured with its session: %+v", entries)
	}
	if e2etest.FindEntry(entries, "learned", "inside a code fence") != nil {
		t.Errorf("a typed line inside a code fence was captured")
	}

	cairntest.Git(t, repo, "add", ".cairn", ".codex")
	cairntest.Git(t, repo, "commit", "-q", "-m", "Add cairn, with what a Codex session learned")
	cairntest.Git(t, repo, "push", "-q", "origin", "main")
	clone := filepath.Join(t.TempDir(), "clone")
	cairntest.Git(t, filepath.Dir(clone), "clone", "-q", origin, clone)
	api2 := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	e2etest.ClaudeSession(t, cli, clone, api2, "continue the payment retry work", true)
	ctx := e2etest.Injected(t, api2)
	for _, want := range []string{"payment retry budget is three attempts", "config/retry.toml"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("the Claude Code session did not recall %q:\n%s", want, ctx)
		}
	}
}

// A teammate without cairn: the session starts normally, and its first
// request tells the model (and the person) how to install cairn.
func TestCodexWithoutCairn(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.In(t, repo, "init", "--codex")
	api := codextest.StartFakeAPI(t, [][]codextest.Item{{codextest.Text("ok")}})
	home := t.TempDir()
	res := codextest.Run(t, codextest.RunOptions{
		API: api, Dir: repo, Home: home, Prompt: "hello",
		ConfigExtra: codexTrust(t, repo),
		Env:         []string{"CAIRN_BIN=", "PATH=" + pathWithout(t, "cairn"), "GOPATH=" + t.TempDir(), "GOBIN="},
	})
	if res.ExitCode != 0 {
		t.Fatalf("codex exited %d\n%s", res.ExitCode, res)
	}
	if ctx := codexContext(t, api); !strings.Contains(ctx, "cairn is not installed on this machine") {
		t.Errorf("no install notice in the first request:\n%.3000s", ctx)
	}
	if strings.Contains(res.Stderr, "hook exited with code") || strings.Contains(res.Stderr, "Failed") {
		t.Errorf("a hook failed:\n%s", res)
	}
}

// pathWithout is PATH without the directories that hold name.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// The interactive UI, as a teammate's first session in a clone: Codex asks
// to trust the folder and then to review cairn's hooks; once the person
// trusts them (what Codex writes, doctor reads as trusted), the session
// gets the team's entry, its reply's typed line lands in the log, and
// /quit runs SessionEnd.
func TestCodexInteractiveFirstSession(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	codextest.FindCLI(t)
	repo := claudetest.NewGitRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	cairntest.In(t, repo, "init", "--codex")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	api := codextest.StartFakeAPI(t, [][]codextest.Item{{codextest.Text("Fixed.\nFACT: the staging OAuth client has its own redirect list")}})
	s := codextest.StartInteractive(t, codextest.InteractiveOptions{API: api, Dir: repo,
		Env: []string{"CAIRN_BIN=" + cairntest.Binary(t)}})
	codexHome := filepath.Join(s.Home(), ".codex")
	if line := doctorWiring(t, repo, codexHome); !strings.Contains(line, "until you trust it") {
		t.Errorf("doctor before trust: %s", line)
	}
	s.Answer(codextest.TrustFolderScreen, "Enter")
	s.WaitScreen("Trust all and continue")
	s.Answer(codextest.HooksReviewScreen, "Down", "Enter")
	s.WaitReady()
	if line := doctorWiring(t, repo, codexHome); !strings.Contains(line, "you trust the project and those hooks") {
		t.Errorf("doctor after trusting in Codex: %s", line)
	}
	s.Type("fix the oauth redirect")
	s.WaitScreen("Fixed.")
	s.WaitReady()
	s.Quit()
	if ctx := codexContext(t, api); !strings.Contains(ctx, "OAuth redirect URI must match exactly") || !strings.Contains(ctx, "<untrusted-knowledge") {
		t.Errorf("the team's entry did not reach the first request:\n%.3000s", ctx)
	}
	entries := e2etest.LogEntries(t, repo)
	if e2etest.FindEntry(entries, "fact", "staging OAuth client has its own redirect list") == nil {
		t.Errorf("the reply's FACT: was not captured: %+v", entries)
	}
	if hb, _, ok := project.New(repo, true).LastBeat(); !ok || hb.Event != "SessionEnd" {
		t.Errorf("the last hook to run was %q, not SessionEnd at /quit", hb.Event)
	}
}

// `cairn init --codex` wires once and then changes nothing; with Claude
// Code wired too, `cairn uninstall --codex` removes exactly cairn's Codex
// hooks (the project's own stay) and leaves the launcher Claude Code runs;
// `--claude` then takes the rest.
func TestCodexInitUninstall(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	repo := claudetest.NewGitRepo(t)
	own := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./scripts/notify.sh"}]}]}}`
	if err := os.MkdirAll(filepath.Join(repo, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".codex", "hooks.json"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := cairntest.In(t, repo, "init", "--codex", "--claude"); !strings.Contains(out, "wired Codex") || !strings.Contains(out, "git add .cairn .claude .codex") {
		t.Errorf("init:\n%s", out)
	}
	if out := cairntest.In(t, repo, "init", "--codex"); !strings.Contains(out, "Codex wiring already in place") {
		t.Errorf("second init:\n%s", out)
	}
	if out := cairntest.In(t, repo, "uninstall", "--codex"); !strings.Contains(out, "cairn's hooks from .codex/hooks.json") || strings.Contains(out, ".cairn/hook") {
		t.Errorf("uninstall --codex:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(repo, ".codex", "hooks.json"))
	if err != nil || strings.Contains(string(data), ".cairn/hook") || !strings.Contains(string(data), "./scripts/notify.sh") {
		t.Errorf("hooks.json after uninstall: %s %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn", "hook")); err != nil {
		t.Errorf("the launcher Claude Code runs was removed: %v", err)
	}
	cairntest.In(t, repo, "uninstall", "--claude")
	if _, err := os.Stat(filepath.Join(repo, ".cairn", "hook")); err == nil {
		t.Error("the launcher outlived both wirings")
	}
}

// Package e2etest holds what cairn's end-to-end packages share:
// teammates (a HOME, a checkout and a PATH each), a Claude Code session
// with the plugin, the context it injected, the project's log as entries,
// and a project with anchored notes. helpers/e2e runs Claude Code;
// helpers/e2e/agents Codex, Gemini CLI, OpenCode and Cursor;
// helpers/e2e/front install.sh, the CI recipe and the viewer. Three
// packages keep each test binary well inside go test's default timeout on
// a loaded machine.
package e2etest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// Teammate is one developer: a HOME, a checkout, and a PATH that has
// cairn on it or not.
type Teammate struct {
	Home, Dir string
	Env       []string
}

// NewTeammate clones remote into a checkout of its own under a HOME of its
// own. With withCairn, a directory holding the cairn binary (named cairn)
// is on PATH, as after go install; without, there is no cairn at all.
func NewTeammate(t *testing.T, remote string, withCairn bool) Teammate {
	t.Helper()
	tm := Teammate{Home: t.TempDir(), Dir: filepath.Join(t.TempDir(), "work", "project")}
	path := "/usr/local/bin:/usr/bin:/bin"
	if withCairn {
		bin := filepath.Join(tm.Home, "go", "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(cairntest.Binary(t), filepath.Join(bin, "cairn")); err != nil {
			t.Fatal(err)
		}
		path = bin + ":" + path
	}
	tm.Env = append(testenv.Home(tm.Home), "PATH="+path, "CAIRN_BIN=", "CAIRN_NO_BACKGROUND=1", "GOPATH="+filepath.Join(tm.Home, "go"))
	if err := os.MkdirAll(filepath.Dir(tm.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, filepath.Dir(tm.Dir), "clone", "-q", remote, tm.Dir)
	return tm
}

// Cairn is the teammate's own cairn, the one on their PATH.
func (tm Teammate) Cairn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tm.Home, "go", "bin", "cairn")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("this teammate has no cairn: %v", err)
	}
	return bin
}

// Session runs one Claude Code session of the teammate's, with the
// project's own wiring only (no plugin), unless plugin is set.
func (tm Teammate) Session(t *testing.T, cli string, api *claudetest.FakeAPI, prompt string, plugin bool) {
	t.Helper()
	opts := claudetest.RunOptions{CLI: cli, API: api, Dir: tm.Dir, Home: tm.Home, Prompt: prompt, Env: tm.Env}
	if plugin {
		opts.PluginDirs = []string{cairntest.RepoRoot(t)}
	}
	res := claudetest.Run(t, opts)
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
}

// ClaudeSession runs one Claude Code session in dir, with the plugin
// loaded when withPlugin is set, and fails the test unless it exits 0.
func ClaudeSession(t *testing.T, cli, dir string, api *claudetest.FakeAPI, prompt string, withPlugin bool, env ...string) claudetest.Result {
	t.Helper()
	opts := claudetest.RunOptions{
		CLI: cli, API: api, Dir: dir, Prompt: prompt,
		AllowedTools: []string{"Bash", "Agent", "Task"},
		Env:          append([]string{"CAIRN_BIN=" + cairntest.Binary(t)}, env...),
	}
	if withPlugin {
		opts.PluginDirs = []string{cairntest.RepoRoot(t)}
	}
	res := claudetest.Run(t, opts)
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	return res
}

// Injected returns the SessionStart context cairn gave the model in the
// first main request.
func Injected(t *testing.T, api *claudetest.FakeAPI) string {
	t.Helper()
	texts := api.MainRequestTexts()
	if len(texts) == 0 {
		t.Fatal("no request reached the fake model")
	}
	first := texts[0]
	i := strings.Index(first, "SessionStart hook additional context:")
	if i < 0 {
		t.Fatalf("no SessionStart context in the first request:\n%.2000s", first)
	}
	return first[i:]
}

// LogEntries reads dir's .cairn/knowledge.jsonl, failing the test on any
// problem in it.
func LogEntries(t *testing.T, dir string) []knowledge.Entry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []knowledge.Entry
	rep := knowledge.Parse(data, func(r knowledge.Record) { out = append(out, r.Entry) })
	if !rep.Clean() {
		t.Fatalf("log has problems: %+v", rep)
	}
	return out
}

// FindEntry returns the first entry of type typ whose content holds
// substr, or nil.
func FindEntry(entries []knowledge.Entry, typ, substr string) *knowledge.Entry {
	for i := range entries {
		if entries[i].Type == typ && strings.Contains(entries[i].Content, substr) {
			return &entries[i]
		}
	}
	return nil
}

// AnchoredProject is a repository with three files, a note anchored to
// payments/client.go and a must-check on db/migrations.
func AnchoredProject(t *testing.T) string {
	t.Helper()
	repo := claudetest.NewGitRepo(t)
	for _, f := range []string{"payments/client.go", "db/migrations/0001.sql", "README.md"} {
		p := filepath.Join(repo, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("-- "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.In(t, repo, "add", "--files", "payments/client.go", "learned", "The payments retry loop must stop when the request context is cancelled")
	cairntest.In(t, repo, "add", "--files", "db/migrations", "must-check", "Dry-run every migration against a staging snapshot first")
	cairntest.Git(t, repo, "add", "-A")
	cairntest.Git(t, repo, "commit", "-q", "-m", "anchored notes")
	return repo
}

// Distillation is what a fake model answers to the session pipeline's
// distillation request.
const Distillation = "```json\n" + `{
 "decisions": [{"summary": "Retry with exponential backoff capped at 30 s", "context": "client.go retry loop", "alternatives": ["fixed delay"], "rationale": "the server rate-limits reconnect bursts", "tags": ["retry"]}],
 "failures": [{"summary": "TestReset timed out after 30 s", "root_cause": "the fake server never closed its connections", "resolution": "close them in the test's cleanup", "prevention": "Close the fake server's connections in every test's cleanup", "tags": ["tests"]}],
 "handoff": ["Write a test for the jittered backoff"],
 "learnings": [{"title": "Fake servers must close their connections", "content": "A fake server that keeps sockets open makes reset tests hang until their timeout.", "context": "TestReset in client_test.go", "scope": "universal", "tags": ["testing"]}]
}` + "\n```"

// HoldoutProject gives repo the two entries the holdout tests look for (a
// note on the OAuth redirect URI and a must-check every session start
// brings) and the team's holdout share of one half.
func HoldoutProject(t *testing.T, repo string) {
	t.Helper()
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, repo, "add", "must-check", "Run the database migrations before deploying the API")
	if err := os.WriteFile(filepath.Join(repo, ".cairn", "config.json"), []byte(`{"holdout": 0.5}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// HoldoutIDs are the first session ids, made by format from 0, 1, 2, …,
// that a holdout share of one half holds out (held) and keeps (kept).
func HoldoutIDs(format string) (held, kept string) {
	for i := 0; held == "" || kept == ""; i++ {
		id := fmt.Sprintf(format, i)
		switch out := holdout.Out(id, 0.5); {
		case out && held == "":
			held = id
		case !out && kept == "":
			kept = id
		}
	}
	return held, kept
}

// Report is `cairn report --json` as a script reads it, by its JSON names.
type Report struct {
	Agents []struct {
		Agent   string `json:"agent"`
		With    int    `json:"with_recall"`
		Without int    `json:"without_recall"`
		Figures []struct {
			Name          string `json:"name"`
			NotRecordedBy string `json:"not_recorded_by"`
			With          Group  `json:"with_recall"`
			Without       Group  `json:"without_recall"`
		} `json:"figures"`
	} `json:"agents"`
	Skipped int `json:"skipped"`
}

// Group is one group's part of a figure in [Report].
type Group struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
}

// RunReport runs the cairn binary's `report --json` with args in dir, with
// env, and decodes what it prints.
func RunReport(t *testing.T, dir string, env []string, args ...string) (Report, []byte) {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), append([]string{"report", "--json"}, args...)...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cairn report: %v\n%s", err, out)
	}
	var r Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r, out
}

// CheckStartContext checks the session-start context ctx of a project
// seeded with the OAuth note, the must-check and an unrelated Kafka fact,
// on a branch about the redirect: the note and the must-check inside the
// untrusted wrapper, the Kafka fact nowhere, and the lines that tell the
// model how to record (LEARNED:).
func CheckStartContext(t *testing.T, ctx string) {
	t.Helper()
	open := strings.Index(ctx, "<untrusted-knowledge")
	close := strings.Index(ctx, "</untrusted-knowledge>")
	if open < 0 || close < open {
		t.Fatalf("no untrusted wrapper in the context:\n%s", ctx)
	}
	inside := ctx[open:close]
	if !strings.Contains(inside, "OAuth redirect URI must match exactly") {
		t.Errorf("relevant entry not inside the wrapper:\n%s", inside)
	}
	if !strings.Contains(inside, "Run the database migrations before deploying") {
		t.Errorf("must-check entry not inside the wrapper:\n%s", inside)
	}
	if strings.Contains(ctx, "Kafka") {
		t.Errorf("irrelevant entry was injected:\n%s", ctx)
	}
	if !strings.Contains(ctx, "LEARNED:") {
		t.Errorf("no how-to-record lines:\n%s", ctx)
	}
}

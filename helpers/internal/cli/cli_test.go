package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/curate"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/session"
)

// Flags after a subcommand's arguments are moved before them; the global
// --dir after the command goes back in front; "--" ends the flags.
func TestIntersperse(t *testing.T) {
	app := newApp(Env{})
	for _, tc := range []struct{ in, want string }{
		{"cairn add learned text --tags a,b", "cairn add --tags a,b -- learned text"},
		{"cairn add learned text --json", "cairn add --json -- learned text"},
		{"cairn recall oauth --dir /p --limit 3", "cairn --dir /p recall --limit 3 -- oauth"},
		{"cairn --dir /p recall oauth", "cairn --dir /p recall -- oauth"},
		{"cairn add learned -- --not-a-flag", "cairn add -- learned --not-a-flag"},
		{"cairn version", "cairn version"},
		{"cairn wiki query why --file-back", "cairn wiki query --file-back -- why"},
		{"cairn wiki query --file-back why", "cairn wiki query --file-back -- why"},
		{"cairn wiki lint --json", "cairn wiki lint --json"},
		{"cairn nosuch x --y", "cairn nosuch x --y"},
	} {
		if got := strings.Join(intersperse(app, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("intersperse(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDirHook(t *testing.T) {
	for _, tc := range []struct {
		in   string
		dir  string
		rest string
		ok   bool
	}{
		{"cairn --dir /p hook Stop", "/p", "cairn hook Stop", true},
		{"cairn --dir=/p hook Stop", "/p", "cairn hook Stop", true},
		{"cairn hook Stop", "", "", false},
		{"cairn --dir /p recall x", "", "", false},
		{"cairn --dir /p hook", "", "", false},
		{"cairn --dir /p hook claude Stop", "/p", "cairn hook claude Stop", true},
	} {
		dir, rest, ok := dirHook(strings.Fields(tc.in))
		if dir != tc.dir || strings.Join(rest, " ") != tc.rest || ok != tc.ok {
			t.Errorf("dirHook(%s) = %q, %q, %v", tc.in, dir, rest, ok)
		}
	}
}

func TestCommandName(t *testing.T) {
	app := newApp(Env{})
	for in, want := range map[string]string{
		"cairn recall x":           "recall",
		"cairn --dir /p retract k": "retract",
		"cairn --dir=/p curate":    "curate",
		"cairn":                    "",
		"cairn nosuch":             "",
	} {
		if got := commandName(app, strings.Fields(in)); got != want {
			t.Errorf("commandName(%s) = %q, want %q", in, got, want)
		}
	}
}

// Every error of the layers below that has a fix gets it, found with
// errors.Is through any wrapping, per command where the fix differs;
// usage errors exit 64, everything else 1.
func TestReport(t *testing.T) {
	for _, tc := range []struct {
		command string
		err     error
		line    string
		code    int
	}{
		{"recall", fmt.Errorf("%w: /tmp/x", project.ErrNotFound), "cairn: not a git repository: /tmp/x (run cairn inside your project, or pass --dir PATH)\n", 1},
		{"add", fmt.Errorf("project directory /nowhere %w", project.ErrNoDir), "cairn: project directory /nowhere does not exist (check --dir or CAIRN_DIR)\n", 1},
		{"sanitize", fmt.Errorf("%w in /p", project.ErrNotProvisioned), "cairn: no .cairn in /p (run cairn init or cairn add first)\n", 1},
		{"curate", fmt.Errorf("f.jsonl: %w", fmt.Errorf("%w k1 in the log", curate.ErrNoEntry)), "cairn: f.jsonl: no entry with key k1 in the log (re-run cairn curate --dry-run)\n", 1},
		{"retract", fmt.Errorf("%w k1", curate.ErrNoEntry), "cairn: no entry with key k1 (find keys with cairn recall WORDS --json)\n", 1},
		{"add", fmt.Errorf("read log: %w", fs.ErrPermission), "cairn: read log: permission denied (make .cairn/knowledge.jsonl readable, e.g. chmod u+rw .cairn/knowledge.jsonl)\n", 1},
		{"sync", fmt.Errorf("open cache: %w", knowledge.ErrCache), "cairn: open cache: search cache (delete .cairn/cache and run cairn sync --full)\n", 1},
		{"check", review.ErrNoHead, "cairn: HEAD has no commit yet (commit first)\n", 1},
		{"check", review.ErrNoDefaultBranch, "cairn: no default branch to compare with (no origin/HEAD, main or master) (pass --base REV)\n", 1},
		{"add", usagef("add needs TYPE and CONTENT"), "cairn: add needs TYPE and CONTENT\n", 64},
		{"add", hinted(errors.New("two\nlines"), "a fix"), "cairn: two lines (a fix)\n", 1},
		{"add", errors.New("plain"), "cairn: plain\n", 1},
	} {
		var b strings.Builder
		code := report(&b, tc.command, tc.err)
		if b.String() != tc.line || code != tc.code {
			t.Errorf("report(%s, %v) = %q, %d; want %q, %d", tc.command, tc.err, b.String(), code, tc.line, tc.code)
		}
	}
	if code := report(new(strings.Builder), "add", nil); code != 0 {
		t.Errorf("report(nil) = %d", code)
	}
}

// The adapters' flags are init's and uninstall's.
func TestAdapterFlags(t *testing.T) {
	var names []string
	for _, f := range adapterFlags("wire") {
		names = append(names, f.Names()...)
	}
	if !reflect.DeepEqual(names, []string{"claude", "cursor", "codex", "opencode", "gemini"}) {
		t.Errorf("adapter flags = %v", names)
	}
}

// panicWriter panics on every write.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("stdout is gone") }

// A panic anywhere in a hook, even outside the session layer (here in
// writing its output), exits 0 with a line on stderr: a hook never fails
// the session.
func TestHookPanicExitsZero(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	var stderr strings.Builder
	payload := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"Stop","last_assistant_message":"DECISION: keep the retry budget at three"}`
	code := Main([]string{"cairn", "hook", "Stop"}, Env{
		Stdin: strings.NewReader(payload), Stdout: panicWriter{}, Stderr: &stderr, Dir: dir,
		Getenv: func(k string) string { return map[string]string{"CAIRN_NO_BACKGROUND": "1"}[k] },
	})
	if code != 0 || !strings.Contains(stderr.String(), "internal error: stdout is gone") {
		t.Errorf("code %d, stderr %q", code, stderr.String())
	}
}

// Every string of a --json output passes the terminal filter, keys
// included; numbers, booleans, nulls and the layout stay as they were.
func TestWriteJSONFilters(t *testing.T) {
	var b strings.Builder
	v := map[string]any{"file\u202e": []any{"fdp.\u202eexe.md", 1.5, int64(1) << 60, true, nil, map[string]any{}}, "empty": []any{}, "ok": "plain"}
	if err := writeJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	want := `{
  "empty": [],
  "file\\u202e": [
    "fdp.\\u202eexe.md",
    1.5,
    1152921504606846976,
    true,
    null,
    {}
  ],
  "ok": "plain"
}
`
	if b.String() != want {
		t.Errorf("writeJSON:\n%s\nwant:\n%s", b.String(), want)
	}
}

// provenance: each agent's tool environment names the agent (and the
// session, where it carries one); a person's shell, a hook's, and an IDE
// terminal with CLAUDECODE alone are a person's.
func TestProvenance(t *testing.T) {
	p := project.New(t.TempDir(), false)
	for _, tc := range []struct {
		env                    map[string]string
		source, agent, session string
	}{
		{nil, "user", "", ""},
		{map[string]string{"CLAUDECODE": "1"}, "user", "", ""},
		{map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}, "agent", "claude", "s1"},
		{map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_ENTRYPOINT": "cli"}, "agent", "claude", ""},
		{map[string]string{"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1", "CAIRN_IN_HOOK": "1"}, "user", "", ""},
		{map[string]string{"CODEX_THREAD_ID": "t1"}, "agent", "codex", "t1"},
		{map[string]string{"CODEX_SANDBOX": "seatbelt"}, "agent", "codex", ""},
		{map[string]string{"GEMINI_CLI": "1"}, "agent", "gemini", ""},
		{map[string]string{"GEMINI_CLI": "1", "GEMINI_SESSION_ID": "g1"}, "agent", "gemini", "g1"},
		{map[string]string{"OPENCODE": "1"}, "agent", "opencode", ""},
		{map[string]string{"OPENCODE": "1", "CAIRN_OPENCODE_SESSION": "ses_1"}, "agent", "opencode", "ses_1"},
		{map[string]string{"CURSOR_AGENT": "1"}, "agent", "cursor", ""},
		{map[string]string{"CURSOR_TRACE_ID": "x"}, "user", "", ""},
	} {
		source, agent, sess := session.Provenance(adapters, func(k string) string { return tc.env[k] }, p.Store)
		if source != tc.source || agent != tc.agent || sess != tc.session {
			t.Errorf("provenance(%v) = %q, %q, %q, want %q, %q, %q", tc.env, source, agent, sess, tc.source, tc.agent, tc.session)
		}
	}
}

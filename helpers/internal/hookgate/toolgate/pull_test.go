package toolgate_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/cli"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate/toolgate"
)

// The base log of the pulls below: notes on lib/c.go, on src/r.go, and
// a must-check on a command.
var pullBase = []string{
	`{"key":"fact-queue-backs-off","type":"fact","content":"the queue backs off","ts":1700000000,"files":["lib/c.go"]}`,
	`{"key":"learned-r-retries","type":"learned","content":"r.go keeps its retries bounded","ts":1700000001,"files":["src/r.go"]}`,
	`{"key":"must-check-plan","type":"must-check","content":"never run ` + "`terraform destroy`" + ` without a plan","ts":1700000002}`,
}

// note is a log line of a note with content and the files field files
// (JSON, as written; "" for none).
func note(key, content, files string) string {
	l := `{"key":"` + key + `","type":"learned","content":"` + content + `","ts":1700000100`
	if files != "" {
		l += `,"files":` + files
	}
	return l + "}"
}

// After a pull (the log changed under the anchor map, no hook between),
// the gate answers a call on a file no note is anchored to, and leaves
// to the full hook every call it cannot prove so: whatever the pull
// brought, the gate's answer is the full hook's, before the catch-up and
// after it. A note the gate leaves is one the full hook shows, but for
// the few the gate leaves to it without reading them exactly (a
// retraction of a note the map holds, a \u escape): the full hook then
// says nothing.
func TestQuietAfterPullIsTheFullHooks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	t.Setenv("CAIRN_NO_BACKGROUND", "1")
	read := `{"file_path":"src/a.go"}`
	for _, c := range []struct {
		name        string
		base        []string // lines before the pull, beside pullBase
		log         []string // the lines the pull adds to the log
		drop        []string // keys whose lines the pull moves to the archive
		archive     []string // lines the pull adds to the archive
		tool, input string
		quiet       bool // the gate answers
		shows       string
	}{
		{name: "a new note on the file", log: []string{note("learned-a-1", "a.go must keep its retries bounded", `["src/a.go"]`)}, shows: "a.go must keep"},
		{name: "a note on a directory above it", log: []string{note("learned-a-2", "the src tree is generated", `["src/"]`)}, shows: "the src tree"},
		{name: "a note on a sibling only", log: []string{note("learned-a-3", "b.go is generated", `["src/b.go"]`)}, quiet: true},
		{name: "a note that mentions the path", log: []string{note("learned-a-4", "src/a.go and src are generated", `["lib/d.go"]`)}, quiet: true},
		{name: "a retraction of another file's note", log: []string{`{"key":"learned-r-retries","type":"learned","content":"r.go keeps its retries bounded","ts":1700000200,"files":["src/r.go"],"status":"retracted","review_reason":"gone"}`}, quiet: true},
		{name: "a retraction of the file's note", base: []string{note("learned-a-5", "a.go logs every retry", `["src/a.go"]`)},
			log: []string{`{"key":"learned-a-5","type":"learned","content":"a.go logs every retry","ts":1700000200,"files":["src/a.go"],"status":"retracted","review_reason":"gone"}`}},
		{name: "a note archived, and one on the file in the archive", drop: []string{"learned-r-retries"},
			archive: []string{note("learned-a-6", "a.go once had a cache", `["src/a.go"]`)}, quiet: true},
		{name: "./src/a.go", log: []string{note("learned-a-7", "dot slash", `["./src/a.go"]`)}, shows: "dot slash"},
		{name: "src//a.go", log: []string{note("learned-a-8", "double slash", `["src//a.go"]`)}, shows: "double slash"},
		{name: "an escaped slash", log: []string{note("learned-a-9", "escaped slash", `["src\/a.go"]`)}, shows: "escaped slash"},
		{name: "a \\u escape", log: []string{note("learned-a-10", "unicode escape", `["\u0073rc/a.go"]`)}, shows: "unicode escape"},
		{name: "a \\u escape elsewhere", log: []string{note("learned-a-11", `caf\u00e9 notes`, `["lib/e.go"]`)}},
		{name: "files as one string", log: []string{note("learned-a-12", "one string", `"lib/f.go, src/a.go"`)}, shows: "one string"},
		{name: "a must-check on the command", log: []string{`{"key":"must-check-apply","type":"must-check","content":"never run ` + "`terraform apply`" + ` without a reviewed plan","ts":1700000100}`},
			tool: "Bash", input: `{"command":"terraform apply"}`, shows: "terraform apply"},
		{name: "a shell call after any pull", log: []string{note("learned-a-13", "b.go is generated", `["src/b.go"]`)}, tool: "Bash", input: `{"command":"go test ./..."}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			cairn := filepath.Join(dir, ".cairn")
			if err := os.MkdirAll(cairn, 0o755); err != nil {
				t.Fatal(err)
			}
			base := append(append([]string{}, pullBase...), c.base...)
			writeLines(t, filepath.Join(cairn, "knowledge.jsonl"), base)
			run(t, dir, "", "--dir", dir, "sync")
			var log []string
			for _, l := range base {
				keep := true
				for _, k := range c.drop {
					if strings.Contains(l, `"key":"`+k+`"`) {
						keep = false
						c.archive = append(c.archive, l)
					}
				}
				if keep {
					log = append(log, l)
				}
			}
			writeLines(t, filepath.Join(cairn, "knowledge.jsonl"), append(log, c.log...))
			if len(c.archive) > 0 {
				writeLines(t, filepath.Join(cairn, "knowledge.archive.jsonl"), c.archive)
			}
			tool, input := c.tool, c.input
			if tool == "" {
				tool, input = "Read", read
			}
			payload := func(session string) string {
				return `{"session_id":"` + session + `","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `}`
			}
			claude, _ := registry.Find(registry.Default)
			if got := toolgate.Quiet(claude, []byte(payload("s1"))); got != c.quiet {
				t.Errorf("the gate answered: %v, want %v", got, c.quiet)
			}
			behind := run(t, dir, payload("s1"), "hook", "PreToolUse")
			run(t, dir, "", "--dir", dir, "sync")
			after := run(t, dir, payload("s2"), "hook", "PreToolUse")
			for what, out := range map[string]string{"before the catch-up": behind, "after it": after} {
				switch {
				case c.quiet && out != "":
					t.Errorf("the gate answered, the full hook %s says %q", what, out)
				case c.shows == "" && out != "":
					t.Errorf("the full hook %s says %q, want nothing", what, out)
				case c.shows != "" && !strings.Contains(out, c.shows):
					t.Errorf("the full hook %s says %q, want %q", what, out, c.shows)
				}
			}
		})
	}
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs cairn with args in dir, stdin its standard input, and returns
// its standard output; it fails the test on a failure or anything on
// standard error.
func run(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(append([]string{"cairn"}, args...), cli.Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Dir: dir})
	if code != 0 || errOut.Len() > 0 {
		t.Fatalf("cairn %s: exit %d: %s", strings.Join(args, " "), code, errOut.String())
	}
	return out.String()
}

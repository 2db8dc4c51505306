package toolgate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// gateProject is a project with a log and an anchor map current with it
// that anchors one note to a.go.
func gateProject(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{".git", ".cairn/cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := fsx.NewRoot(filepath.Join(dir, ".cairn"))
	id, err := anchor.Identity(store)
	if err != nil {
		t.Fatal(err)
	}
	m := anchor.Map{Sources: id, Files: map[string][]string{"a.go": {"learned-a"}}, Commands: map[string][]string{"terraform apply": {"must-check-t"}}}
	if err := store.ReplaceFile(anchor.File, anchor.Encode(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func payload(dir, tool, input string) []byte {
	return []byte(`{"session_id":"s","cwd":"` + dir + `","tool_name":"` + tool + `","tool_input":` + input + `}`)
}

// quiet answers only what it can judge: nothing anchored to the call, the
// map current with the log.
func TestQuiet(t *testing.T) {
	dir := gateProject(t)
	t.Setenv("CAIRN_DIR", "")
	t.Setenv("CLAUDE_PROJECT_DIR", "")
	for _, c := range []struct {
		name, tool, input string
		want              bool
	}{
		{"unanchored file", "Read", `{"file_path":"` + dir + `/b.go"}`, true},
		{"anchored file", "Read", `{"file_path":"a.go"}`, false},
		{"a command naming an anchored file", "Bash", `{"command":"cat a.go"}`, false},
		{"a guarded command", "Bash", `{"command":"terraform apply"}`, false},
		{"another command", "Bash", `{"command":"go test ./..."}`, true},
		{"a file outside the project", "Read", `{"file_path":"/etc/hosts"}`, true},
		{"not a payload", "", ``, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := quiet(claudeAgent, payload(dir, c.tool, c.input)); got != c.want {
				t.Errorf("quiet = %v, want %v", got, c.want)
			}
		})
	}
	// The log changed (a pull): what the map anchors still goes to the
	// full hook, and so does what a line of the log anchors, and any
	// shell command; a file nothing anchors is answered.
	if err := os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), []byte("{}\n"+`{"key":"k","type":"fact","content":"x","ts":1,"files":["c.go"]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool, input string
		want        bool
	}{
		{"Read", `{"file_path":"b.go"}`, true},
		{"Read", `{"file_path":"a.go"}`, false},
		{"Read", `{"file_path":"c.go"}`, false},
		{"Bash", `{"command":"go test ./..."}`, false},
	} {
		if got := quiet(claudeAgent, payload(dir, c.tool, c.input)); got != c.want {
			t.Errorf("after a pull, %s %s: quiet = %v, want %v", c.tool, c.input, got, c.want)
		}
	}
	// No .cairn: nothing to say.
	bare := t.TempDir()
	os.Mkdir(filepath.Join(bare, ".git"), 0o755)
	if !quiet(claudeAgent, payload(bare, "Read", `{"file_path":"b.go"}`)) {
		t.Error("a project without .cairn went to the full hook")
	}
}

// The no-match judgement, without the process around it.
func BenchmarkQuiet(b *testing.B) {
	dir := gateProject(b)
	b.Setenv("CAIRN_DIR", "")
	b.Setenv("CLAUDE_PROJECT_DIR", "")
	data := payload(dir, "Read", `{"file_path":"`+dir+`/src/none/b.go"}`)
	for b.Loop() {
		if !quiet(claudeAgent, data) {
			b.Fatal("not quiet")
		}
	}
}

// claudeAgent is Claude Code as the registry lists it.
var claudeAgent, _ = registry.Find(registry.Default)

// The gate's identity of the log files is fsx's, which the cache records
// in the map: a present log, a missing archive, and after a write.
func TestIdentityAgreesWithFsx(t *testing.T) {
	dir := gateProject(t)
	cairn := filepath.Join(dir, ".cairn")
	check := func(what string) {
		t.Helper()
		s := openTestStore(t, cairn)
		got, err := anchor.Identity(s)
		want, werr := anchor.Identity(fsx.NewRoot(cairn))
		if err != nil || werr != nil || got != want {
			t.Errorf("%s: the gate's identity %q (%v), fsx's %q (%v)", what, got, err, want, werr)
		}
	}
	check("log, no archive")
	if err := os.WriteFile(filepath.Join(cairn, "knowledge.archive.jsonl"), []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("log and archive")
}

// openTestStore opens the gate's store on the .cairn directory cairn,
// closed when the test ends.
func openTestStore(t *testing.T, cairn string) *store {
	t.Helper()
	fi, err := os.Lstat(cairn)
	if err != nil {
		t.Fatal(err)
	}
	s, err := openStore(cairn, fi)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

package adapters_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The scaffolded agent's name, and the files of "How to add" an agent in
// docs/ARCHITECTURE.md, by the path the document gives them (NAME for the
// agent's name): a new file's text, or the one line added to a file.
const fakeAgent = "fake"

var scaffold = map[string]struct {
	text       string // a new file
	after, add string // or: add this line after the line that holds after
}{
	"helpers/internal/agent/NAME/hooks/hooks.go": {text: fakeSpec},
	"helpers/internal/agent/NAME/protocol.go":    {text: fakeProtocol},
	"helpers/internal/agent/NAME/wiring.go":      {text: fakeWiring},
	"helpers/internal/agent/registry/registry.go": {
		after: "var Agents = []*spec.Spec{", add: "\t&fakehooks.Spec,",
	},
	"helpers/internal/agent/adapters/adapters.go": {
		after: "var all = []agent.Adapter{", add: "\tfake.Adapter{},",
	},
}

// imports are the imports the two one-line edits need (goimports would
// add them).
var scaffoldImports = map[string]string{
	"helpers/internal/agent/registry/registry.go": `fakehooks "github.com/cairn-dev/cairn/helpers/internal/agent/fake/hooks"`,
	"helpers/internal/agent/adapters/adapters.go": `"github.com/cairn-dev/cairn/helpers/internal/agent/fake"`,
}

// Adding an agent copies no code and touches only the files "How to add"
// lists: this test reads that list from docs/ARCHITECTURE.md, writes a
// sixth agent into exactly those files, in an overlay of the module (go
// build -overlay: the work tree is not touched), then builds the binary
// with it and runs the registry's tests, the hook gate's and the
// launcher's over six agents — and the binary wires a
// project for the new agent, answers its hooks and checks its wiring.
func TestAddAnAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and vets the module with a sixth agent")
	}
	root := moduleRoot(t)
	listed := agentFiles(t, root)
	var want []string
	for p := range scaffold {
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(listed, want) {
		t.Fatalf("docs/ARCHITECTURE.md's \"How to add\" lists the files\n%v\nthe scaffold writes\n%v", listed, want)
	}

	tmp := t.TempDir()
	replace := map[string]string{}
	for i, p := range listed {
		s := scaffold[p]
		text := s.text
		if text == "" {
			orig, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				t.Fatal(err)
			}
			text = string(orig)
			if !strings.Contains(text, s.after+"\n") {
				t.Fatalf("%s has no line %q to add the agent after", p, s.after)
			}
			text = strings.Replace(text, s.after+"\n", s.after+"\n"+s.add+"\n", 1)
			text = strings.Replace(text, "import (\n", "import (\n\t"+scaffoldImports[p]+"\n", 1)
		}
		backing := filepath.Join(tmp, "overlay", strings.Repeat("x", i+1)+".go")
		writeFile(t, backing, text)
		replace[filepath.Join(root, strings.ReplaceAll(p, "NAME", fakeAgent))] = backing
	}
	// One more test file in the overlay: the sixth agent is really there.
	check := filepath.Join(tmp, "overlay", "check_test.go")
	writeFile(t, check, fakeCheck)
	replace[filepath.Join(root, "helpers/internal/agent/adapters/scaffolded_test.go")] = check
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	overlayFile := filepath.Join(tmp, "overlay.json")
	writeFile(t, overlayFile, string(overlay))

	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		// Offline, with the module cache and the build cache as they are;
		// CGO off as cairntest builds the binary, so its cache serves.
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	ov := "-overlay=" + overlayFile
	// The binary holds every package the agent reaches (the gate, the
	// hooks, init, doctor, the pipeline, MCP). (go vet runs in each
	// package's directory, which an overlay cannot make: vet is off.)
	bin := filepath.Join(tmp, "cairn")
	goCmd("build", ov, "-tags", "urfave_cli_no_docs", "-o", bin, "./helpers/cairn")
	out := goCmd("test", ov, "-vet=off", "-count=1", "-v", "-run", "^(TestLayersAgree|TestScaffoldedAgent|TestToolCallAgreesWithAdapters|TestReplyAgreesWithAdapters|TestLauncher|TestNoticesAreJSON)$",
		"./helpers/internal/agent/adapters/", "./helpers/internal/hookgate/", "./helpers/internal/agent/launcher/")
	for _, name := range []string{"TestLayersAgree", "TestScaffoldedAgent", "TestToolCallAgreesWithAdapters", "TestLauncher"} {
		if !strings.Contains(out, "--- PASS: "+name+" ") {
			t.Errorf("%s did not run over six agents:\n%s", name, out)
		}
	}

	// cairn init --fake wires a project, and the agent's hooks answer.
	project := filepath.Join(tmp, "project")
	if err := os.Mkdir(project, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = project
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "CAIRN_DIR=", "CLAUDE_PROJECT_DIR=", "FAKE_PROJECT_DIR="+project)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if out, err := exec.Command("git", "-C", project, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if out := run("", "init", "--fake"); !strings.Contains(out, "wired Fake Agent") {
		t.Errorf("cairn init --fake said:\n%s", out)
	}
	hooksJSON, err := os.ReadFile(filepath.Join(project, ".fake", "hooks.json"))
	if err != nil || !strings.Contains(string(hooksJSON), ".cairn/hook --agent fake Touch") {
		t.Errorf(".fake/hooks.json = %s (%v)", hooksJSON, err)
	}
	run("", "add", "--files", "a.go", "learned", "a.go keeps its init order")
	if out := run(`{"session_id":"s","cwd":"`+project+`","tool_name":"read","tool_input":{"file_path":"a.go"}}`, "hook", "fake", "Touch"); !strings.Contains(out, "a.go keeps its init order") {
		t.Errorf("the fake agent's hook before reading a.go answered %q", out)
	}
	if out := run(`{"session_id":"s","cwd":"`+project+`","tool_name":"read","tool_input":{"file_path":"b.go"}}`, "hook", "fake", "Touch"); out != "" {
		t.Errorf("the fake agent's hook before reading b.go answered %q", out)
	}
	if out := run("", "doctor"); !strings.Contains(out, "Fake Agent: .fake/hooks.json runs .cairn/hook") {
		t.Errorf("doctor does not check the fake agent:\n%s", out)
	}
}

// agentFiles are the files docs/ARCHITECTURE.md's "How to add" lists for
// an agent: the paths, in backticks, that open its numbered steps.
func agentFiles(t *testing.T, root string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "**An agent.**")
	if !ok {
		t.Fatal(`docs/ARCHITECTURE.md has no "**An agent.**" in "How to add"`)
	}
	section, _, _ = strings.Cut(section, "\n**")
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\d+\\. `(helpers/[^`]+)`").FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeSpec is the sixth agent's spec: helpers/internal/agent/fake/hooks.
const fakeSpec = `// Package hooks is Fake Agent's spec, a sixth agent that TestAddAnAgent
// adds by following docs/ARCHITECTURE.md's "How to add".
package hooks

import (
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the adapter's name.
const Agent = "fake"

// Spec is Fake Agent, as cairn knows it before its adapter runs.
var Spec = spec.Spec{
	Name:         Agent,
	Title:        "Fake Agent",
	Events:       Events,
	StartEvent:   "Begin",
	NotInstalled: ` + "`" + `{"context":"{model}","status":"cairn: {person}"}\n` + "`" + `,
	ProjectVar:   "FAKE_PROJECT_DIR",
	ToolCall:     ToolCall,
	HoldForTool:  true,
}

// Events is the agent's table of events.
var Events = []spec.Hook{
	{Event: "Begin", Kind: event.Start, Timeout: 60},
	{Event: "Ask", Kind: event.Prompt, Timeout: 10},
	{Event: "Said", Kind: event.Reply, Timeout: 10},
	{Event: "Touch", Kind: event.BeforeTool, Matcher: "read|edit|shell", Timeout: 10},
}

// ToolCall reads the payload before a tool: Claude Code's shape.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, "shell", func(tool string) bool { return tool == "edit" })
}
`

// fakeProtocol is the sixth agent's hook protocol.
const fakeProtocol = `// Package fake is Fake Agent's adapter, a sixth agent that TestAddAnAgent
// adds by following docs/ARCHITECTURE.md's "How to add".
package fake

import (
	"fmt"
	"io"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/fake/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Adapter is Fake Agent's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "fake".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "Fake Agent".
func (Adapter) Title() string { return hooks.Spec.Title }

// Kind is the moment an event name stands for.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// payload is what cairn reads of a hook's payload.
type payload struct {
	Session string ` + "`json:\"session_id\"`" + `
	Cwd     string ` + "`json:\"cwd\"`" + `
	Prompt  string ` + "`json:\"prompt\"`" + `
	Reply   string ` + "`json:\"reply\"`" + `
}

// Decode turns a payload into a session event.
func (Adapter) Decode(name string, data []byte, getenv func(string) string) (event.Event, error) {
	kind := hooks.Spec.Kind(name)
	if kind == event.Unknown {
		return event.Event{}, fmt.Errorf("unknown %s hook event %q", hooks.Agent, name)
	}
	p, err := agent.DecodePayload[payload](hooks.Agent, data)
	if err != nil {
		return event.Event{}, err
	}
	e := event.Event{Kind: kind, Name: name, Session: p.Session, Cwd: p.Cwd, ProjectDir: getenv(hooks.Spec.ProjectVar),
		Prompt: p.Prompt, Text: p.Reply, Agent: hooks.Agent}
	if kind == event.BeforeTool && !hooks.Spec.BeforeTool(data, &e) {
		return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
	}
	return e, nil
}

// Encode writes cairn's answer as one JSON object.
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) {
	if a.Empty() {
		return nil, nil
	}
	return agent.EncodeOutput(hooks.Agent, struct {
		Context string ` + "`json:\"context,omitempty\"`" + `
		Status  string ` + "`json:\"status,omitempty\"`" + `
	}{a.Context, a.Status})
}

// ReadTranscript: cairn reads no transcript of Fake Agent.
func (Adapter) ReadTranscript(io.Reader) (event.Conversation, error) {
	return event.Conversation{}, agent.NoTranscript("reading transcripts is not supported for fake")
}

// Caller: Fake Agent sets FAKE_AGENT=1 in its tools' environment.
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	return getenv("FAKE_SESSION"), getenv("FAKE_AGENT") == "1"
}
`

// fakeWiring is the sixth agent's project wiring: .fake/hooks.json.
const fakeWiring = `package fake

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/fake/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

func fakeDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".fake")) }

// wanted is .fake/hooks.json as cairn writes it.
func wanted() []byte {
	commands := map[string]string{}
	for _, h := range hooks.Events {
		commands[h.Event] = launcher.Path + " --agent " + hooks.Agent + " " + h.Event
	}
	data, _ := json.Marshal(map[string]any{"hooks": commands})
	return data
}

// Wiring describes what Wire writes.
func (Adapter) Wiring() string { return ".cairn/hook and .fake/hooks.json" }

// Paths are .cairn and .fake/hooks.json.
func (Adapter) Paths() []string { return []string{".cairn", ".fake/hooks.json"} }

// Wire writes the launcher and .fake/hooks.json.
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	wrote, err := agent.EditConfig(fakeDir(project), "hooks.json", func(data []byte) ([]byte, bool, error) {
		return wanted(), !bytes.Equal(data, wanted()), nil
	})
	return changed || wrote, err
}

// Unwire removes .fake/hooks.json.
func (Adapter) Unwire(project string, _ fsx.Root) ([]string, error) {
	if !(Adapter{}).Uses(project) {
		return nil, nil
	}
	return []string{".fake/hooks.json"}, fakeDir(project).Remove("hooks.json")
}

// Uses reports whether .fake/hooks.json is cairn's.
func (Adapter) Uses(project string) bool {
	data, err := agent.ReadConfig(fakeDir(project), "hooks.json")
	return err == nil && bytes.Equal(data, wanted())
}

// CheckWiring reports the project's wiring for Fake Agent.
func (a Adapter) CheckWiring(project string, cairnDir fsx.Root, _ string) agent.Wiring {
	if !a.Uses(project) {
		return agent.Status("ok", "Fake Agent: not wired", "")
	}
	if state, err := launcher.Check(cairnDir); err != nil || state != launcher.OK {
		return agent.Status("fail", "Fake Agent: .cairn/hook is missing or not executable", "cairn init --fake")
	}
	return agent.Status("ok", "Fake Agent: .fake/hooks.json runs .cairn/hook", "")
}
`

// fakeCheck is a test in the overlaid agent/adapters: the sixth agent is
// in both layers of the registry, and decodes through its spec's reader.
const fakeCheck = `package adapters_test

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

func TestScaffoldedAgent(t *testing.T) {
	s, ok := registry.Find("fake")
	a, aok := adapters.Find("fake")
	if !ok || !aok || len(registry.Agents) != 6 {
		t.Fatalf("the sixth agent is not in the registry: %v", registry.Names())
	}
	data := []byte(` + "`" + `{"session_id":"s","cwd":"/p","tool_name":"edit","tool_input":{"file_path":"a.go"}}` + "`" + `)
	e, err := a.Decode("Touch", data, func(string) string { return "" })
	c, _ := s.ToolCall(data)
	if err != nil || e.Kind != event.BeforeTool || e.Path != "a.go" || !e.Edits || c.Path != e.Path {
		t.Errorf("Decode = %+v, %v; the gate reads %+v", e, err, c)
	}
}
`

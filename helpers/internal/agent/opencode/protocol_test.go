package opencode_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// Payloads recorded from OpenCode 1.18.33 running cairn's plugin (a
// launcher that saved its stdin), paths replaced.
const (
	sessionStartPayload = `{"session_id":"ses_df2ed7a82ffeSZLcywDLI9QmRj","cwd":"/home/dev/src/shop","project_dir":"/home/dev/src/shop"}`
	userPromptPayload   = `{"session_id":"ses_df2ed7a82ffeSZLcywDLI9QmRj","cwd":"/home/dev/src/shop","project_dir":"/home/dev/src/shop","prompt":"\"fix payment retries\""}`
	toolAfterPayload    = `{"session_id":"ses_df2ed7a82ffeSZLcywDLI9QmRj","cwd":"/home/dev/src/shop","project_dir":"/home/dev/src/shop","tool":"bash","command":"echo hi; bd comments add bd-1 \"MUST-CHECK: x\"","exit":127}`
	textCompletePayload = `{"session_id":"ses_df2ed7a82ffeSZLcywDLI9QmRj","cwd":"/home/dev/src/shop","project_dir":"/home/dev/src/shop","text":"Done.\nLEARNED: hello world"}`
)

const (
	session = "ses_df2ed7a82ffeSZLcywDLI9QmRj"
	dir     = "/home/dev/src/shop"
)

func TestKind(t *testing.T) {
	want := map[string]event.Kind{
		"SessionStart": event.Start, "UserPrompt": event.Prompt,
		"ToolAfter": event.ToolRan, "TextComplete": event.Reply, "ToolBefore": event.BeforeTool,
	}
	for name, k := range want {
		if got := (opencode.Adapter{}).Kind(name); got != k {
			t.Errorf("Adapter{}.Kind(%q) = %s, want %s", name, got, k)
		}
	}
	for _, name := range []string{"", "sessionstart", " SessionStart", "SessionStart ", "PostToolUse", "Stop",
		"chat.message", "tool.execute.after", "experimental.text.complete", "session.idle"} {
		if got := (opencode.Adapter{}).Kind(name); got != event.Unknown {
			t.Errorf("Adapter{}.Kind(%q) = %s, want unknown", name, got)
		}
	}
	if len(hooks.Events) != len(want) {
		t.Errorf("the table has %d events, the test knows %d", len(hooks.Events), len(want))
	}
	for _, h := range hooks.Events {
		if h.On == "" || h.Timeout <= 0 {
			t.Errorf("%s: no source hook or no timeout: %+v", h.Event, h)
		}
	}
}

func TestDecodeFixtures(t *testing.T) {
	exit := 127
	cases := []struct {
		name, payload string
		want          event.Event
		payloadWant   opencode.Payload
	}{
		{"SessionStart", sessionStartPayload,
			event.Event{Kind: event.Start, Name: "SessionStart", Session: session, Cwd: dir, ProjectDir: dir, Agent: "opencode"},
			opencode.Payload{SessionID: session, Cwd: dir, ProjectDir: dir}},
		{"UserPrompt", userPromptPayload,
			event.Event{Kind: event.Prompt, Name: "UserPrompt", Session: session, Cwd: dir, ProjectDir: dir, Prompt: `"fix payment retries"`, Agent: "opencode"},
			opencode.Payload{SessionID: session, Cwd: dir, ProjectDir: dir, Prompt: `"fix payment retries"`}},
		{"ToolAfter", toolAfterPayload,
			event.Event{Kind: event.ToolRan, Name: "ToolAfter", Session: session, Cwd: dir, ProjectDir: dir, Shell: true,
				Command: `echo hi; bd comments add bd-1 "MUST-CHECK: x"`, Failed: true, Agent: "opencode"},
			opencode.Payload{SessionID: session, Cwd: dir, ProjectDir: dir, Tool: "bash", Command: `echo hi; bd comments add bd-1 "MUST-CHECK: x"`, Exit: &exit}},
		{"TextComplete", textCompletePayload,
			event.Event{Kind: event.Reply, Name: "TextComplete", Session: session, Cwd: dir, ProjectDir: dir, Text: "Done.\nLEARNED: hello world", Agent: "opencode"},
			opencode.Payload{SessionID: session, Cwd: dir, ProjectDir: dir, Text: "Done.\nLEARNED: hello world"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := opencode.Adapter{}.Decode(c.name, []byte(c.payload), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Decode =\n%+v\nwant\n%+v", got, c.want)
			}
			p, err := opencode.DecodePayload([]byte(c.payload))
			if err != nil {
				t.Fatal(err)
			}
			pj, _ := json.Marshal(p)
			wj, _ := json.Marshal(c.payloadWant)
			if string(pj) != string(wj) {
				t.Errorf("DecodePayload = %s, want %s", pj, wj)
			}
		})
	}
}

// What a tool call carries decides Shell and Failed: only the shell tool
// counts, and only a non-zero exit status is a failure (none reported is
// not one).
func TestDecodeToolCalls(t *testing.T) {
	cases := []struct {
		payload       string
		shell, failed bool
	}{
		{`{"tool":"bash","command":"ls","exit":0}`, true, false},
		{`{"tool":"bash","command":"false","exit":1}`, true, true},
		{`{"tool":"bash","command":"ls"}`, true, false},
		{`{"tool":"read","command":"ls","exit":2}`, false, true},
		{`{"tool":"Bash","command":"ls"}`, false, false},
		{`{"command":"ls"}`, false, false},
	}
	for _, c := range cases {
		e, err := opencode.Adapter{}.Decode(hooks.ToolAfter, []byte(c.payload), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		if e.Shell != c.shell || e.Failed != c.failed || e.Command != "ls" && e.Command != "false" {
			t.Errorf("%s: shell %v failed %v command %q", c.payload, e.Shell, e.Failed, e.Command)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ name, payload string }{
		{"Stop", sessionStartPayload},
		{"", sessionStartPayload},
		{"SessionStart", ""},
		{"SessionStart", "not json"},
		{"SessionStart", `["an","array"]`},
		{"ToolAfter", `{"exit":"127"}`},
		{"TextComplete", `{"text":42}`},
	} {
		if _, err := (opencode.Adapter{}).Decode(c.name, []byte(c.payload), nil); err == nil {
			t.Errorf("Adapter{}.Decode(%q, %q) = nil error", c.name, c.payload)
		}
	}
}

func TestEncode(t *testing.T) {
	start := event.Event{Kind: event.Start, Name: "SessionStart"}
	prompt := event.Event{Kind: event.Prompt, Name: "UserPrompt"}
	tool := event.Event{Kind: event.ToolRan, Name: "ToolAfter"}
	reply := event.Event{Kind: event.Reply, Name: "TextComplete"}
	ctx := "<untrusted-knowledge source=\"cairn\">\n- [learned] a & b\n</untrusted-knowledge>"
	cases := []struct {
		name string
		e    event.Event
		a    event.Answer
		want string
	}{
		{"start", start, event.Answer{Context: ctx, Status: "cairn: recalled 1 of 3 team entries"},
			`{"context":"<untrusted-knowledge source=\"cairn\">\n- [learned] a & b\n</untrusted-knowledge>","status":"cairn: recalled 1 of 3 team entries"}` + "\n"},
		{"start without status", start, event.Answer{Context: "x"}, `{"context":"x"}` + "\n"},
		{"prompt", prompt, event.Answer{Context: "y"}, `{"context":"y"}` + "\n"},
		{"capture status", tool, event.Answer{Status: "cairn: recorded 1 must-check"}, `{"status":"cairn: recorded 1 must-check"}` + "\n"},
		{"no context after a tool", tool, event.Answer{Context: "z"}, ""},
		{"no context after a reply", reply, event.Answer{Context: "z", Status: "s"}, `{"status":"s"}` + "\n"},
		{"empty", start, event.Answer{}, ""},
		{"no go-on", reply, event.Answer{GoOn: "record what you learned"}, ""},
	}
	for _, c := range cases {
		got, err := opencode.Adapter{}.Encode(c.e, c.a)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s: Encode = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestReadTranscript(t *testing.T) {
	_, err := opencode.Adapter{}.ReadTranscript(strings.NewReader("{}"))
	if !errors.Is(err, opencode.ErrNoTranscript) || !strings.Contains(err.Error(), "not supported for opencode") {
		t.Errorf("ReadTranscript error = %v", err)
	}
}

// Without cairn, the committed launcher answers the plugin's SessionStart
// with the notice in the plugin's format: one line of JSON, the notice as
// context for the model and as the person's status line; every other
// event of the plugin's gets nothing.
func TestLauncherNoticeWithoutCairn(t *testing.T) {
	dir := t.TempDir()
	if _, err := launcher.Write(fsx.NewRoot(dir)); err != nil {
		t.Fatal(err)
	}
	run := func(name string) string {
		cmd := exec.Command("sh", filepath.Join(dir, launcher.File), "--agent", "opencode", name)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "CAIRN_BIN=", "GOPATH=" + t.TempDir()}
		cmd.Stdin = strings.NewReader(sessionStartPayload)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(out)
	}
	out := run(hooks.Spec.StartEvent)
	var o opencode.Output
	if err := json.Unmarshal([]byte(out), &o); err != nil || !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("not one line of JSON: %q (%v)", out, err)
	}
	if !strings.Contains(o.Context, "cairn is not installed on this machine") || !strings.HasPrefix(o.Status, "cairn: cairn is not installed") ||
		!strings.Contains(o.Status, "To install it: ") || strings.Contains(o.Context, "To install it") {
		t.Errorf("notice: %+v", o)
	}
	for _, h := range hooks.Events {
		if h.Event != hooks.Spec.StartEvent {
			if out := run(h.Event); out != "" {
				t.Errorf("%s without cairn printed %q", h.Event, out)
			}
		}
	}
}

// ToolBefore names the tool's file and command; its answer's context goes
// to the plugin (which adds it to the session's context).
func TestToolBefore(t *testing.T) {
	e, err := (opencode.Adapter{}).Decode("ToolBefore", []byte(`{"session_id":"s","cwd":"/p","project_dir":"/p","tool":"edit","file_path":"/p/a.go"}`), nil)
	if err != nil || e.Kind != event.BeforeTool || e.Tool != "edit" || e.Path != "/p/a.go" || !e.Edits || e.Shell {
		t.Fatalf("Decode = %+v, %v", e, err)
	}
	e, err = (opencode.Adapter{}).Decode("ToolBefore", []byte(`{"session_id":"s","tool":"bash","command":"cat a.go"}`), nil)
	if err != nil || !e.Shell || e.Command != "cat a.go" || e.Edits {
		t.Fatalf("Decode = %+v, %v", e, err)
	}
	out, err := (opencode.Adapter{}).Encode(e, event.Answer{Context: "note", Status: "cairn: 1 note"})
	if err != nil || string(out) != `{"context":"note","status":"cairn: 1 note"}`+"\n" {
		t.Errorf("Encode = %s, %v", out, err)
	}
}

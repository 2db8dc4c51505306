package spec

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

var testSpec = Spec{
	Name: "t",
	Events: []Hook{
		{Event: "Start", Kind: event.Start},
		{Event: "AfterFile", Kind: event.BeforeTool, On: "After"},
	},
	ToolCall: func(data []byte) (event.ToolCall, bool) {
		return event.ReadToolCall(data, "sh", func(tool string) bool { return tool == "edit" })
	},
}

// Kind reads the event table by the name cairn is run with, never by the
// agent's own name of a second registration.
func TestKind(t *testing.T) {
	for name, want := range map[string]event.Kind{"Start": event.Start, "AfterFile": event.BeforeTool, "After": event.Unknown, "": event.Unknown} {
		if got := testSpec.Kind(name); got != want {
			t.Errorf("Kind(%q) = %v, want %v", name, got, want)
		}
	}
	if testSpec.Events[0].Source() != "Start" || testSpec.Events[1].Source() != "After" {
		t.Error("Source is not On, else Event")
	}
}

// BeforeTool puts the spec's reading of a call in the event, and refuses
// what the reader refuses and an agent without a reader.
func TestBeforeTool(t *testing.T) {
	e := event.Event{Command: "left from elsewhere"}
	if !testSpec.BeforeTool([]byte(`{"tool_name":"edit","tool_input":{"file_path":"a.go"}}`), &e) {
		t.Fatal("not read")
	}
	if e.Tool != "edit" || e.Path != "a.go" || !e.Edits || e.Shell || e.Command != "" {
		t.Errorf("BeforeTool = %+v", e)
	}
	if !testSpec.BeforeTool([]byte(`{"tool_name":"sh","tool_input":{"command":"cat a.go"}}`), &e) || !e.Shell || e.Command != "cat a.go" || e.Path != "" {
		t.Errorf("BeforeTool of a shell command = %+v", e)
	}
	if testSpec.BeforeTool([]byte(`[]`), &e) {
		t.Error("read a payload that is not an object")
	}
	if (Spec{}).BeforeTool([]byte(`{}`), &e) {
		t.Error("read a call for an agent without a reader")
	}
}

package agent

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Only events added after capture and recall make a missing event a
// warning: the pipeline's and the notes before a tool call.
func TestMissingLater(t *testing.T) {
	kinds := map[string]event.Kind{"Compact": event.Compact, "End": event.End, "Tool": event.BeforeTool, "Start": event.Start, "Ran": event.ToolRan}
	kind := func(n string) event.Kind { return kinds[n] }
	for _, c := range []struct {
		missing []string
		what    string
		ok      bool
	}{
		{[]string{"Compact", "End"}, "the session pipeline's events", true},
		{[]string{"Tool"}, "the notes before a tool call", true},
		{[]string{"End", "Tool"}, "the session pipeline's events and the notes before a tool call", true},
		{[]string{"Tool", "Ran"}, "", false},
		{[]string{"Start"}, "", false},
		{nil, "", false},
	} {
		if what, ok := MissingLater(c.missing, kind); what != c.what || ok != c.ok {
			t.Errorf("MissingLater(%v) = %q, %v; want %q, %v", c.missing, what, ok, c.what, c.ok)
		}
	}
}

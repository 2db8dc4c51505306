package recall_test

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
)

// Which entries wait for the moment before a tool: notes anchored to a
// file or directory that exists, for an agent with that moment; never a
// must-check, a note on nothing, a note on files that are gone, nor
// anything for an agent without the moment.
func TestHeldForTool(t *testing.T) {
	exists := func(p string) bool { return p == "payments/client.go" || p == "db/migrations" }
	for _, tc := range []struct {
		name       string
		typ        string
		files      []string
		toolMoment bool
		want       bool
	}{
		{"a note on an existing file", "learned", []string{"payments/client.go"}, true, true},
		{"a note on an existing directory", "decision", []string{"db/migrations"}, true, true},
		{"a note on a gone file and an existing one", "fact", []string{"gone.go", "payments/client.go"}, true, true},
		{"a note whose files are all gone", "learned", []string{"gone.go", "old/dir"}, true, false},
		{"a note without anchors", "learned", nil, true, false},
		{"a must-check on an existing directory", "must-check", []string{"db/migrations"}, true, false},
		{"an agent without a moment before a tool", "learned", []string{"payments/client.go"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := knowledge.Entry{Key: "k", Type: tc.typ, Content: "c", Files: tc.files}
			if got := recall.HeldForTool(e, tc.toolMoment, exists); got != tc.want {
				t.Errorf("HeldForTool = %v, want %v", got, tc.want)
			}
		})
	}
}

// HoldForTool keeps each side's order.
func TestHoldForToolKeepsOrder(t *testing.T) {
	exists := func(p string) bool { return p == "a.go" }
	var in []knowledge.Entry
	for _, k := range []string{"n1", "h1", "n2", "h2"} {
		e := knowledge.Entry{Key: k, Type: "learned"}
		if k[0] == 'h' {
			e.Files = []string{"a.go"}
		}
		in = append(in, e)
	}
	now, held := recall.HoldForTool(in, true, exists)
	keys := func(es []knowledge.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Key)
		}
		return out
	}
	if !slices.Equal(keys(now), []string{"n1", "n2"}) || !slices.Equal(keys(held), []string{"h1", "h2"}) {
		t.Errorf("now %v, held %v", keys(now), keys(held))
	}
	if now, held := recall.HoldForTool(in, false, exists); len(now) != 4 || len(held) != 0 {
		t.Errorf("without a moment before a tool: now %d, held %d", len(now), len(held))
	}
}

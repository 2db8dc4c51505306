package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/holdout"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// The MCP server recalls nothing for a holdout session (the session its
// client's environment names): its recall and handoff tools say why; a
// session the share keeps is answered as usual.
func TestHoldoutSessionRecallsNothing(t *testing.T) {
	dir := repo(t)
	seed(t, dir, knowledge.Entry{Key: "learned-oauth", Type: "learned", Content: "OAuth redirect URI must match exactly, including the trailing slash", TS: 1700000000})
	if err := os.WriteFile(filepath.Join(dir, knowledge.DirName, knowledge.ConfigName), []byte(`{"holdout": 0.5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		id := fmt.Sprintf("sess-%d", i)
		env := vars(t)
		env["CLAUDECODE"], env["CLAUDE_CODE_SESSION_ID"] = "1", id
		o := options(dir, env)
		o.Adapters = []agent.Adapter{claude.Adapter{}}
		cs := connect(t, o)
		text, isErr := call(t, cs, ToolRecall, map[string]any{"query": "oauth redirect"}, nil)
		hand, _ := call(t, cs, ToolHandoff, map[string]any{}, nil)
		if isErr {
			t.Fatalf("recall failed: %s", text)
		}
		if holdout.Out(id, 0.5) {
			if text != heldOutText || strings.Contains(text, "OAuth") || hand != heldOutText {
				t.Errorf("%s (held out): recall %q, handoff %q", id, text, hand)
			}
		} else if !strings.Contains(text, "OAuth redirect URI must match") {
			t.Errorf("%s (kept): recall %q", id, text)
		}
	}
}

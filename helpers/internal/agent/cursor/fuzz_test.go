package cursor_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Decode never panics, and what it accepts Encode can answer.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(strings.SplitN(filepath.Base(name), ".", 2)[0], data)
	}
	f.Add("afterShellExecution", []byte(`{"workspace_roots":[],"command":null}`))
	f.Add("afterAgentResponse", []byte(`{"text":"\u0000LEARNED: x"}`))
	f.Add("stop", []byte(`{}`))
	f.Add("postToolUse", []byte(`{"tool_name":"Read","tool_input":"{\"file_path\":1}","workspace_roots":[""]}`))
	f.Add("postToolUse", []byte(`{"tool_name":"Write","tool_input":{"file_path":7,"path":"x"}}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e, err := cursor.Adapter{}.Decode(name, data, func(string) string { return "" })
		if err != nil {
			return
		}
		if e.Kind == event.Unknown || e.Agent != "cursor" || e.Transcript != "" {
			t.Fatalf("Adapter{}.Decode(%q) = %+v", name, e)
		}
		out, err := cursor.Adapter{}.Encode(e, event.Answer{Context: string(data), Status: "s"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == event.BeforeTool {
			// The hook gate reads the call as Decode does.
			c, ok := hooks.ToolCall(data)
			if !ok || c.Path != e.Path || c.Tool != e.Tool || c.Edits != e.Edits || c.Session != e.Session || c.Cwd != e.Cwd {
				t.Fatalf("the gate read %+v (%v), Decode %+v", c, ok, e)
			}
		}
		if e.Kind == event.Start || e.Kind == event.BeforeTool {
			var v map[string]string
			if err := json.Unmarshal(out, &v); err != nil || len(v) != 1 {
				t.Fatalf("Encode: %q %v", out, err)
			}
		} else if out != nil {
			t.Fatalf("Adapter{}.Encode(%s) = %q", e.Kind, out)
		}
	})
}

// Install never panics; what it writes is wired exactly, idempotent, and
// Uninstall takes cairn's part of it back out.
func FuzzInstall(f *testing.F) {
	for _, s := range []string{"", "{}", userFile, cairnOnly, `{"hooks":{"stop":null}}`, `{"hooks":{"sessionStart":[1,"x",{"command":7}]}}`,
		`{"a":1,"a":2,"hooks":{"x":[]},"hooks":{"stop":[{"command":".cairn/hook --agent cursor stop"}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, changed, err := cursor.Install(data)
		if err != nil {
			return
		}
		if !changed && !bytes.Equal(out, data) {
			t.Fatal("unchanged, but other bytes")
		}
		if missing, err := cursor.Wired(out); err != nil || len(missing) != 0 {
			t.Fatalf("Install left %v unwired (%v):\n%s", missing, err, out)
		}
		if again, changed, err := cursor.Install(out); err != nil || changed || !bytes.Equal(again, out) {
			t.Fatalf("Install is not idempotent (%v, %v):\n%s", changed, err, out)
		}
		rest, _, _, err := cursor.Uninstall(out)
		if err != nil {
			t.Fatalf("Uninstall refused Install's output: %v", err)
		}
		var left struct {
			Hooks map[string][]json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal(rest, &left); err != nil {
			t.Fatalf("Uninstall wrote invalid JSON: %v\n%s", err, rest)
		}
		for name, defs := range left.Hooks {
			for _, d := range defs {
				var def struct {
					Command any `json:"command"`
				}
				if json.Unmarshal(d, &def) == nil {
					if s, ok := def.Command.(string); ok && strings.Contains(s, cursor.Marker) {
						t.Fatalf("Uninstall left cairn's hook on %s:\n%s", name, rest)
					}
				}
			}
		}
		if missing, err := cursor.Wired(rest); err != nil || len(missing) != len(cursor.Events()) {
			t.Fatalf("Uninstall left %v wired (%v)", missing, err)
		}
	})
}

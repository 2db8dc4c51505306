package event

import (
	"encoding/json"
	"testing"
)

// ReadToolCall reads the file a tool names (file_path, else
// notebook_path, else path), the shell's command only for the shell, and
// leaves empty what a tool_input of another shape does not give.
func TestReadToolCall(t *testing.T) {
	edits := func(tool string) bool { return tool == "Edit" }
	for _, c := range []struct {
		payload string
		want    ToolCall
		ok      bool
	}{
		{`{"session_id":"s","cwd":"/p","tool_name":"Edit","tool_input":{"file_path":"a.go","path":"b"}}`,
			ToolCall{Session: "s", Cwd: "/p", Tool: "Edit", Path: "a.go", Edits: true}, true},
		{`{"tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}`, ToolCall{Tool: "NotebookEdit", Path: "n.ipynb"}, true},
		{`{"tool_name":"Glob","tool_input":{"pattern":"*.go","path":"db"}}`, ToolCall{Tool: "Glob", Path: "db"}, true},
		{`{"tool_name":"Bash","tool_input":{"command":"cat a.go"}}`, ToolCall{Tool: "Bash", Shell: true, Command: "cat a.go"}, true},
		{`{"tool_name":"Read","tool_input":{"command":"cat a.go"}}`, ToolCall{Tool: "Read"}, true},
		{`{"tool_name":"Bash","tool_input":{"command":["sh","-c","x"],"file_path":"a.go"}}`, ToolCall{Tool: "Bash", Shell: true, Path: "a.go"}, true},
		{`{"tool_name":"mcp","tool_input":"text"}`, ToolCall{Tool: "mcp"}, true},
		{`{"tool_name":"Read"}`, ToolCall{Tool: "Read"}, true},
		{`{"session_id":7}`, ToolCall{}, false},
		{`not json`, ToolCall{}, false},
	} {
		got, ok := ReadToolCall([]byte(c.payload), "Bash", edits)
		if ok != c.ok || got != c.want {
			t.Errorf("ReadToolCall(%s) = %+v, %v; want %+v, %v", c.payload, got, ok, c.want, c.ok)
		}
	}
}

// ReadToolCall never panics, and reads whatever JSON object it is given.
func FuzzReadToolCall(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"cat a.go"}}`))
	f.Add([]byte(`{"tool_input":{"file_path":1,"path":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, ok := ReadToolCall(data, "Bash", func(string) bool { return true })
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil && ok {
			t.Errorf("read %+v from a payload that is not an object", c)
		}
		if c.Shell != (c.Tool == "Bash") && ok {
			t.Errorf("shell %v for tool %q", c.Shell, c.Tool)
		}
	})
}

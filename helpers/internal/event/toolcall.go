package event

import "encoding/json"

// ToolCall is what an agent's one reader of its payload before a tool
// call (its spec's ToolCall, in agent/NAME/hooks) reads: enough for the
// hook gate to look the call up in the anchor map, and what the agent's
// adapter puts in the [Event].
type ToolCall struct {
	Session    string
	Cwd        string
	ProjectDir string // the project, when the payload names it
	Tool       string
	Path       string // the file the tool names, as given
	Command    string // a shell command
	Shell      bool
	Edits      bool // the tool writes Path
}

// ReadToolCall reads a payload in Claude Code's shape (session_id, cwd,
// tool_name, tool_input with file_path, notebook_path, path or command), which
// Codex and Gemini CLI send too: shell is the agent's shell tool ("" for
// none), edits reports whether a tool writes the file it names. A
// tool_input that is not an object, or whose fields are not strings,
// names nothing (an MCP tool's input is anything).
func ReadToolCall(data []byte, shell string, edits func(tool string) bool) (ToolCall, bool) {
	var p struct {
		Session string          `json:"session_id"`
		Cwd     string          `json:"cwd"`
		Tool    string          `json:"tool_name"`
		Input   json.RawMessage `json:"tool_input"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ToolCall{}, false
	}
	var in struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
		Command      string `json:"command"`
		Path         string `json:"path"`
	}
	_ = json.Unmarshal(p.Input, &in) // a field of another type is left empty
	c := ToolCall{Session: p.Session, Cwd: p.Cwd, Tool: p.Tool, Path: in.FilePath, Edits: edits(p.Tool)}
	if c.Path == "" {
		c.Path = in.NotebookPath
	}
	if c.Path == "" {
		c.Path = in.Path // a search or a listing: where it looks
	}
	if shell != "" && p.Tool == shell {
		c.Shell, c.Command = true, in.Command
	}
	return c, true
}

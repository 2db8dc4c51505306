package event

import "encoding/json"

// ToolCall is what the hook gate reads of a payload sent before a tool
// call, without the agent's adapter: enough to look the call up in the
// anchor map.
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
// none), edits reports whether a tool writes the file it names.
func ReadToolCall(data []byte, shell string, edits func(tool string) bool) (ToolCall, bool) {
	var p struct {
		Session string `json:"session_id"`
		Cwd     string `json:"cwd"`
		Tool    string `json:"tool_name"`
		Input   struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
			Command      string `json:"command"`
			Path         string `json:"path"`
		} `json:"tool_input"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ToolCall{}, false
	}
	c := ToolCall{Session: p.Session, Cwd: p.Cwd, Tool: p.Tool, Path: p.Input.FilePath, Edits: edits(p.Tool)}
	if c.Path == "" {
		c.Path = p.Input.NotebookPath
	}
	if c.Path == "" {
		c.Path = p.Input.Path // a search or a listing: where it looks
	}
	if shell != "" && p.Tool == shell {
		c.Shell, c.Command = true, p.Input.Command
	}
	return c, true
}

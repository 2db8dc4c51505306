package hookgate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	codexhooks "github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	geminihooks "github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	opencodehooks "github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
)

// toolCall is what the gate reads of a payload before a tool call.
type toolCall struct {
	Session    string
	Cwd        string
	ProjectDir string // the project, when the payload names it
	Tool       string
	Path       string // the file the tool names, as given
	Command    string // a shell command
	Shell      bool
	Edits      bool
}

// toolPayloads read the payloads before a tool call of the agents whose
// no-match path the gate answers, by adapter name.
var toolPayloads = map[string]func(data []byte) (toolCall, bool){
	hooks.Agent: claudeTool,
	// Codex 0.169 sends Claude Code's field names; its shell is Bash.
	codexhooks.Agent:    claudeTool,
	opencodehooks.Agent: openCodeTool,
	geminihooks.Agent:   geminiTool,
}

// geminiTool reads Gemini CLI's payload after a file tool (AfterTool,
// which cairn answers as the moment before a tool, see
// geminihooks.FileToolEvent).
func geminiTool(data []byte) (toolCall, bool) {
	var p struct {
		Session string `json:"session_id"`
		Cwd     string `json:"cwd"`
		Tool    string `json:"tool_name"`
		Input   struct {
			FilePath string `json:"file_path"`
		} `json:"tool_input"`
	}
	if json.Unmarshal(data, &p) != nil {
		return toolCall{}, false
	}
	return toolCall{Session: p.Session, Cwd: p.Cwd, Tool: p.Tool, Path: p.Input.FilePath, Edits: geminihooks.EditTools[p.Tool]}, true
}

// openCodeTool reads the payload cairn's OpenCode plugin sends before a
// tool call (ToolBefore).
func openCodeTool(data []byte) (toolCall, bool) {
	var p struct {
		Session    string `json:"session_id"`
		Cwd        string `json:"cwd"`
		ProjectDir string `json:"project_dir"`
		Tool       string `json:"tool"`
		Command    string `json:"command"`
		FilePath   string `json:"file_path"`
	}
	if json.Unmarshal(data, &p) != nil {
		return toolCall{}, false
	}
	return toolCall{Session: p.Session, Cwd: p.Cwd, ProjectDir: p.ProjectDir, Tool: p.Tool, Path: p.FilePath,
		Command: p.Command, Shell: slices.Contains(opencodehooks.ShellTools, p.Tool),
		Edits: slices.Contains(opencodehooks.EditTools, p.Tool)}, true
}

// claudeTool reads Claude Code's PreToolUse payload.
func claudeTool(data []byte) (toolCall, bool) {
	var p struct {
		Session string `json:"session_id"`
		Cwd     string `json:"cwd"`
		Tool    string `json:"tool_name"`
		Input   struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
			Command      string `json:"command"`
		} `json:"tool_input"`
	}
	if json.Unmarshal(data, &p) != nil {
		return toolCall{}, false
	}
	c := toolCall{Session: p.Session, Cwd: p.Cwd, Tool: p.Tool, Path: p.Input.FilePath, Edits: hooks.EditTools[p.Tool]}
	if c.Path == "" {
		c.Path = p.Input.NotebookPath
	}
	if p.Tool == "Bash" {
		c.Shell, c.Command = true, p.Input.Command
	}
	return c, true
}

// quiet answers a tool call that touches nothing anchored, before the
// program starts: it reports whether the call has nothing to be told —
// the project has no .cairn, or the anchor map, current with the log,
// anchors nothing to the call's file (or a directory above it) or, for a
// shell command, to the files it names or a command prefix it runs. An
// edit it answers is noted for the turn's capture. One mapping of the map
// (a binary search per path reads a few pages of it), a few stats; no
// SQLite, no git. Anything it cannot judge (a map
// missing or older than the log, a payload it cannot read, a failure to
// note an edit) goes to the full hook, which answers it and brings the
// map up to date.
func quiet(agent string, read func([]byte) (toolCall, bool), data []byte) (ok bool) {
	// A panic in an init would exit 2, which Claude Code reads as "block".
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c, ok := read(data)
	if !ok {
		return false
	}
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	agentDir := c.ProjectDir
	if v := queued[agent]; agentDir == "" && v != "" {
		agentDir = os.Getenv(v)
	}
	root := projroot.Resolve(projroot.Request{Getenv: os.Getenv, Agent: agentDir, Cwd: c.Cwd, Dir: wd}).Dir
	fi, err := os.Lstat(filepath.Join(root, ".cairn"))
	if err != nil {
		return os.IsNotExist(err) // no team memory here: nothing to say
	}
	if !fi.IsDir() {
		return false // a link or a file: the full hook reports it
	}
	store := fsx.NewRoot(filepath.Join(root, ".cairn"))
	id, err := anchor.Identity(store)
	if err != nil {
		return false
	}
	var paths []string
	file, fileOK := anchor.Rel(root, c.Cwd, c.Path)
	if fileOK {
		paths = append(paths, file)
	}
	command := ""
	if c.Shell {
		command = c.Command
		for _, w := range anchor.CommandPaths(c.Command) {
			if rel, ok := anchor.Rel(root, c.Cwd, w); ok {
				paths = append(paths, rel)
			}
		}
	}
	// Mapped, not read: a lookup touches a few pages of the map.
	nothing := false
	err = store.MapFile(anchor.File, anchor.MaxBytes, func(data []byte) error {
		src, ok := anchor.SourcesOf(data)
		nothing = ok && src == id && len(anchor.Lookup(data, paths, command)) == 0
		return nil
	})
	if err != nil || !nothing {
		return false
	}
	if c.Edits && fileOK && anchor.NoteTouched(store, c.Session, file) != nil {
		return false
	}
	return true
}

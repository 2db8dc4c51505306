package hookgate

import (
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
)

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
func quiet(a spec.Spec, data []byte) (ok bool) {
	// A panic in an init would exit 2, which Claude Code reads as "block".
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c, ok := a.ToolCall(data)
	if !ok {
		return false
	}
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	agentDir := c.ProjectDir
	if agentDir == "" && a.ProjectVar != "" {
		agentDir = os.Getenv(a.ProjectVar)
	}
	root := projroot.Resolve(projroot.Request{Getenv: os.Getenv, Agent: agentDir, Cwd: c.Cwd, Dir: wd}).Dir
	fi, err := os.Lstat(filepath.Join(root, ".cairn"))
	if err != nil {
		return os.IsNotExist(err) // no team memory here: nothing to say
	}
	if !fi.IsDir() {
		return false // a link or a file: the full hook reports it
	}
	store := fsx.NewRoot(filepath.Join(root, ".cairn")).PrivateUnder("local") // knowledge.LocalDir: what a session touched is the person's
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

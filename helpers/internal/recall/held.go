package recall

import (
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// HeldForTool reports whether the team entry e waits for the moment
// before a tool touches one of its files instead of coming at session
// start or with a prompt: it does when the agent has that moment
// (toolMoment), e is not a must-check, and one of e's anchors (files)
// exists in the project (exists, given the project-relative path). That
// moment brings it, once, when the file is read, edited or named in a
// command (see docs/moment-of-use.md).
//
// The rest stays where it was: a must-check is a constraint the session
// should know from the start (it also comes once as a check before a
// matching tool); a note without anchors has no tool to wait for; a note
// whose anchored files are all gone would never be touched; and an agent
// without a moment before a tool (Cursor, an MCP client asking) gets
// everything at the start. The one place this rule lives.
func HeldForTool(e knowledge.Entry, toolMoment bool, exists func(path string) bool) bool {
	if !toolMoment || e.Type == typed.MustCheck {
		return false
	}
	return slices.ContainsFunc(e.Files, func(f string) bool {
		p, ok := anchor.Clean(f)
		return ok && exists(p)
	})
}

// HoldForTool splits entries, in order, into those shown now and those
// held for the moment before a tool (see [HeldForTool]).
func HoldForTool(entries []knowledge.Entry, toolMoment bool, exists func(path string) bool) (now, held []knowledge.Entry) {
	for _, e := range entries {
		if HeldForTool(e, toolMoment, exists) {
			held = append(held, e)
		} else {
			now = append(now, e)
		}
	}
	return now, held
}

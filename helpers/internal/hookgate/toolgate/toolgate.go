// Package toolgate answers the hook before a tool call when the call
// touches nothing anchored, in an init that runs before the program's
// later packages initialise: the second of the hook's gates, after
// package hookgate/judge, whose read of the payload it takes ([judge.Read]).
//
// Go initialises a package once the packages it imports are initialised,
// taking ready packages in import-path order, so a package waits for
// every ready package whose path sorts before the last of its imports.
// This package imports only judge, the agents' specs, the leaves anchor,
// projroot and filestat, and the standard library's early packages (os,
// io/fs, errors, strings, syscall): never fsx, path/filepath, os/exec,
// runtime/debug or golang.org/x/sys, which sort late (measured with
// GODEBUG=inittrace=1: its init runs after about 75 initialisers, as the
// reject rule's does; TestToolGateRunsBeforeHeavyPackages holds the
// ceiling). So it reads the project's .cairn without fsx: through an
// os.Root, refusing links and special files as fsx does (see [store]),
// and it looks the anchor map up by offset ([anchor.LookupAt]), a few
// small reads, rather than mapping it, so that no fault can come of a map
// that shrinks under it.
//
// When the map is older than the log (a pull, a merge, a checkout changed
// it, and no hook has synced since), the map alone cannot tell. A note
// bears on a file only through a files name of the latest line of its
// key in the log (knowledge.jsonl: a key whose latest line is archived is
// not live; retractions and sanitize's verdicts only take anchors away),
// so when the map anchors nothing to the call and no line of the log has
// a files name that cleans to the file or a directory above it
// ([anchor.UnanchoredAt]: one read of the log through a small buffer, no
// parse of the lines without a files field), the map caught up would
// anchor nothing there either: the gate answers, and starts the
// background sync as the full hook would. A shell command is not answered
// so (a must-check anchors to a command prefix, which the scan does not
// look for).
//
// Its init also answers the hook after a tool ran when its output holds
// nothing to capture (package judge's rule): before it exits, it checks
// the anchor map's record of the log against the log, and when they
// differ (the call was a pull, a merge, a checkout, or the person pulled
// in a terminal) it starts the background sync, so that the next tool
// call finds the cache current or catching up ([catchUp]).
//
// A call it cannot judge (a map missing, too large, or not a regular
// file; a map older than the log and a log that may anchor a note to the
// call, or one it does not read exactly, or a shell command; a link or a
// special file on the way; a payload it cannot read; a failure to note an
// edit) goes on to the full hook, which answers it.
package toolgate

import (
	"errors"
	"io/fs"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate/judge"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
)

func init() {
	c, ok := judge.Read()
	if !ok || !c.OK {
		return
	}
	if c.Before {
		if quiet(c.Agent, c.Payload) {
			os.Exit(0)
		}
		return
	}
	// A tool's output with nothing to capture (a reply's session is
	// queued by package hookgate): the call may have been a pull.
	if c.Kind != event.Reply && judge.Judge(c.Kind, c.Payload) == judge.Nothing {
		catchUp(c.Agent, c.Payload)
		os.Exit(0)
	}
}

// open opens the .cairn of the project of a hook call of agent a, as c
// (read from its payload) names it. err is the Lstat's when there is none
// (fs.ErrNotExist), errUnsafe when it is not a directory (a link, a file:
// the full hook reports it).
func open(a spec.Spec, c event.ToolCall) (s *store, root string, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, "", err
	}
	agentDir := c.ProjectDir
	if agentDir == "" && a.ProjectVar != "" {
		agentDir = os.Getenv(a.ProjectVar)
	}
	root = projroot.Resolve(projroot.Request{Getenv: os.Getenv, Agent: agentDir, Cwd: c.Cwd, Dir: wd}).Dir
	dir := root + string(os.PathSeparator) + ".cairn"
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, root, err
	}
	if !fi.IsDir() {
		return nil, root, errUnsafe
	}
	s, err = openStore(dir, fi)
	return s, root, err
}

// quiet reports whether a tool call has nothing to be told: the project
// has no .cairn, or the anchor map anchors nothing to the call's file (or
// a directory above it) or, for a shell command, to the files it names
// or a command prefix it runs, and the map is current with the log or,
// for a call that is not a shell command, no line of the log anchors a
// note there (see [store.nothingAnchored]; the background sync is then
// started). An edit it answers is noted for the turn's capture. A few
// stats and small reads, and after a pull one read of the log; no
// SQLite, no git. It never panics: a panic in an init would exit 2, which
// Claude Code reads as "block".
func quiet(a spec.Spec, data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	c, ok := a.ToolCall(data)
	if !ok {
		return false
	}
	s, root, err := open(a, c)
	if err != nil {
		// No team memory here: nothing to say. A link or a file: the
		// full hook reports it.
		return errors.Is(err, fs.ErrNotExist)
	}
	defer s.Close()
	id, err := anchor.Identity(s)
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
	ok, behind := s.nothingAnchored(id, paths, command)
	if !ok {
		return false
	}
	if c.Edits && fileOK && anchor.NoteTouched(s, c.Session, file) != nil {
		return false
	}
	if behind {
		// The full hook would read behind the cache and start the
		// sync: so does this, so that the next call finds the map
		// current.
		background(s, root)
	}
	return true
}

// Package hookgate is the capture hook's reject path for a reply. Most
// shell commands and replies carry nothing to capture, and for those the
// hook must cost almost nothing (a budget of 3 ms for the whole process).
// The reject rule itself and the payload's read are package
// hookgate/judge's, whose init runs first; a tool's output with nothing
// to capture (after a pull, once a background sync is started) and the
// hook before a tool call on a file with no note are answered by package
// hookgate/toolgate's init, next
// (this package imports it, so its init runs before this one's). Go runs
// a package's init once the packages it imports are initialised, taking
// ready packages in import-path order; this package imports judge, the
// standard library's os, io, bytes, fmt, time and encoding/json and
// cairn's leaf packages event, the agents' specs (agent/spec,
// agent/*/hooks, not the adapters, whose imports would run first),
// projroot (which project), typed, and the session pipeline's producer
// (pipeline/queue, with fsx, userconf and detach), so its init runs before
// SQLite's, go-git's and the CLI framework's, after about 115 small
// packages (measured with GODEBUG=inittrace=1: Go takes every ready
// package whose path sorts before path/filepath and os/exec, which it
// waits for). For a reply with nothing to capture of an agent whose
// transcript cairn reads, when the user turned the session pipeline on,
// the session is queued: a few stats and one small file, the transcript
// never read; then it exits 0, nothing written. A payload that holds a
// typed prefix is left to package hookgate/accept, whose init captures it
// next, still before those packages ([Accepted]). The full hook applies
// the same rule ([Run]) to the calls these inits do not judge. Everything
// else, including any payload they cannot judge (unreadable, too large,
// not valid JSON), goes on to the full hook, which reads the payload from
// [Stdin].
package hookgate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/hookgate/judge"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"

	// The hook before a tool call: a call on a file with no note is
	// answered in its init, before this package's.
	_ "github.com/cairn-dev/cairn/helpers/internal/hookgate/toolgate"
)

// accepted is the agent and event name of a capture event whose payload
// holds a typed prefix.
var accepted struct{ agent, name string }

// Accepted returns the capture event the gates let through because its
// payload holds a typed prefix: the agent's name, the event's, and the
// payload. ok is false for any other call.
func Accepted() (agent, name string, payload []byte, ok bool) {
	if accepted.agent == "" {
		return "", "", nil, false
	}
	c, _ := judge.Read()
	return accepted.agent, accepted.name, c.Payload, true
}

// Stdin returns the hook's standard input: what the gate already read, if
// it read it, else os.Stdin.
func Stdin() io.Reader {
	if c, read := judge.Read(); read {
		return bytes.NewReader(c.Payload)
	}
	return os.Stdin
}

func init() {
	c, ok := judge.Read()
	if !ok || !c.OK {
		return
	}
	if c.Before {
		return // hookgate/toolgate's init answered what it could judge
	}
	switch reject(c.Agent, c.Kind, c.Payload) {
	case Nothing:
		os.Exit(0)
	case Capture:
		if json.Valid(c.Payload) { // else the full hook reports it
			accepted.agent, accepted.name = c.Agent.Name, c.Name
		}
	}
}

// reject runs the reject rule; a reply with nothing to capture has its
// session queued. It fails silently (the reject path writes nothing, and
// the session's end queues the session again) and never panics: a panic
// in an init would exit 2, which Claude Code reads as "block".
func reject(a spec.Spec, kind event.Kind, data []byte) (v Verdict) {
	defer func() {
		if recover() != nil {
			v = Invalid // the full hook answers
		}
	}()
	dir, _ := os.Getwd()
	v, _ = Run(kind, data, Caller{
		Decode: func() (event.Event, error) { return reply(a, data, os.Getenv) },
		Root: func(e event.Event) string {
			return projroot.Resolve(projroot.Request{Getenv: os.Getenv, Agent: e.ProjectDir, Cwd: e.Cwd, Dir: dir}).Dir
		},
		Dir:    dir,
		Getenv: os.Getenv,
	})
	return v
}

// reply reads what the reject path needs of a reply of an agent whose
// transcript cairn reads, without its adapter (whose imports would run
// first): its session, transcript, cwd and project directory. Another
// agent's reply gets an event without a transcript, which is not queued.
func reply(a spec.Spec, data []byte, getenv func(string) string) (event.Event, error) {
	if !a.Transcript {
		return event.Event{}, nil
	}
	var p struct {
		Session    string `json:"session_id"`
		Transcript string `json:"transcript_path"`
		Cwd        string `json:"cwd"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return event.Event{}, err
	}
	e := event.Event{Kind: event.Reply, Session: p.Session, Transcript: p.Transcript, Cwd: p.Cwd, Agent: a.Name}
	if a.ProjectVar != "" {
		e.ProjectDir = getenv(a.ProjectVar)
	}
	return e, nil
}

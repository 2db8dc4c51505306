// Package hookgate is the capture hook's reject path, and the no-match
// path of the hook that runs before a tool call (see quiet). Most shell commands
// and replies carry nothing to capture, and for those the hook must cost
// almost nothing (a budget of 3 ms for the whole process). Go runs a
// package's init once the packages it imports are initialised, taking ready
// packages in import-path order; this package imports only the standard
// library's os, io, bytes, fmt, time and encoding/json and cairn's leaf
// packages event, the agents' specs (agent/registry, agent/spec and
// agent/*/hooks, not the adapters, whose imports would run first; none
// has work at init), projroot (which project),
// typed, and the session pipeline's producer (pipeline/queue, with userconf
// and detach), so its init runs before most of the program's: measured with
// GODEBUG=inittrace=1, after 107 small packages taking about 1.1 ms
// together (Go takes every ready package whose path sorts before os,
// path/filepath and os/exec, which it waits for, encoding/gob's 0.2 ms
// among them), and before SQLite's, go-git's and the CLI framework's own.
// It answers `cairn hook EVENT` (Claude Code) and `cairn hook AGENT EVENT`
// (an agent of the registry) for an event that may carry
// typed lines (a tool ran, a reply) whose payload holds no typed prefix:
// exit 0, nothing written (but for a reply of an agent whose transcript
// cairn reads, when the user turned the session pipeline on, the session is
// queued: a few stats and one small file, the transcript never read). A
// payload that does hold one is left to package hookgate/accept, whose init
// captures it next, still before those packages ([Accepted]). The full hook
// applies the same rule ([Run]) to the calls this init does not judge.
// Everything else, including any payload it cannot judge (unreadable, too
// large, not valid JSON), goes on to the full hook, which reads the payload
// from [Stdin].
package hookgate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
)

// consumed holds what init read of stdin when it let the call through.
var consumed []byte

// read reports whether init read stdin.
var read bool

// accepted is the agent and event name of a capture event whose payload
// (consumed) holds a typed prefix.
var accepted struct{ agent, name string }

// Accepted returns the capture event init let through because its payload
// holds a typed prefix: the agent's name, the event's, and the payload. ok
// is false for any other call.
func Accepted() (agent, name string, payload []byte, ok bool) {
	if accepted.agent == "" {
		return "", "", nil, false
	}
	return accepted.agent, accepted.name, consumed, true
}

// Stdin returns the hook's standard input: what the gate already read, if
// it read it, else os.Stdin.
func Stdin() io.Reader {
	if read {
		return bytes.NewReader(consumed)
	}
	return os.Stdin
}

func init() {
	agent, name, ok := hookArgs(os.Args)
	if !ok {
		return
	}
	a, ok := registry.Find(agent)
	if !ok {
		return
	}
	kind := a.Kind(name)
	before := kind == event.BeforeTool && a.ToolCall != nil
	if !before && !kind.CaptureOnly() {
		return
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, event.MaxPayload+1))
	consumed, read = data, true
	if err != nil || len(data) > event.MaxPayload {
		return
	}
	if before {
		if quiet(a, data) {
			os.Exit(0)
		}
		return
	}
	switch judge(a, kind, data) {
	case Nothing:
		os.Exit(0)
	case Capture:
		if json.Valid(data) { // else the full hook reports it
			accepted.agent, accepted.name = agent, name
		}
	}
}

// judge runs the reject rule; a reply with nothing to capture has its
// session queued. It fails silently (the reject path writes nothing, and
// the session's end queues the session again) and never panics: a panic
// in an init would exit 2, which Claude Code reads as "block".
func judge(a spec.Spec, kind event.Kind, data []byte) (v Verdict) {
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

// hookArgs reads `cairn hook EVENT` (Claude Code's) and `cairn hook AGENT
// EVENT` from args.
func hookArgs(args []string) (agent, name string, ok bool) {
	switch {
	case len(args) == 3 && args[1] == "hook":
		return registry.Default, args[2], true
	case len(args) == 4 && args[1] == "hook":
		return args[2], args[3], true
	}
	return "", "", false
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

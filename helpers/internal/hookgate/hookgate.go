// Package hookgate is the capture hook's reject path. Most shell commands
// and replies carry nothing to capture, and for those the hook must cost
// almost nothing (design §6: 3 ms for the whole process). Go runs a
// package's init once the packages it imports are initialised, taking
// ready packages in import-path order; this package imports only the
// standard library's os, io, bytes and encoding/json and cairn's leaf
// packages typed, event, the agent registry's first layer (agent/registry,
// with the agents' event tables agent/*/hooks; not the adapters, whose
// imports would run first) and the session pipeline's producer
// (pipeline/queue, and detach), so its init runs before most of the
// program's: measured with GODEBUG=inittrace=1, after 107 small packages
// taking about 1.1 ms together (Go takes every ready package whose path
// sorts before os, path/filepath and os/exec, which it waits for,
// encoding/gob's 0.2 ms among them), and before SQLite's, go-git's and the
// CLI framework's own. It answers `cairn hook EVENT` (Claude Code,
// [registry.Default]) and `cairn hook AGENT EVENT` (an agent of
// [registry.Agents]) for an event that may carry typed lines (a tool ran,
// a reply) whose payload holds no typed prefix: exit 0, nothing written
// (but for a reply of an agent whose transcript cairn reads, when the user
// turned the session pipeline on, the session is queued: a few stats and
// one small file, the transcript never read). A payload that does hold one
// is left to package hookgate/accept, whose init captures it next, still
// before those packages ([Accepted]). Everything else, including any
// payload it cannot judge (unreadable, too large, not valid JSON), goes on
// to the full hook, which reads the payload from [Stdin].
package hookgate

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
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
	if !ok || !a.Kind(name).CaptureOnly() {
		return
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, event.MaxPayload+1))
	consumed, read = data, true
	if err != nil || len(data) > event.MaxPayload {
		return
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return // the full hook reports it
	}
	if !typed.MightContain(string(data)) {
		if a.Transcript && a.Kind(name) == event.Reply {
			enqueue(agent, data)
		}
		os.Exit(0)
	}
	accepted.agent, accepted.name = agent, name
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

// enqueue is the session pipeline's producer for a reply with nothing to
// capture (the full hook's session layer does the same for the others):
// the task names the session's transcript, which is not read here. It
// fails silently: the reject path writes nothing, and the session's end
// queues the session again.
func enqueue(agent string, data []byte) {
	// Nothing here may fail the hook: a panic in an init would exit 2,
	// which Claude Code reads as "block".
	defer func() { _ = recover() }()
	var p struct {
		Session    string `json:"session_id"`
		Transcript string `json:"transcript_path"`
		Cwd        string `json:"cwd"`
	}
	if json.Unmarshal(data, &p) != nil {
		return
	}
	project := os.Getenv("CAIRN_DIR")
	if project == "" {
		project = os.Getenv("CLAUDE_PROJECT_DIR")
	}
	t := queue.Task{Session: p.Session, Transcript: p.Transcript, Cwd: p.Cwd, Project: project,
		Agent: agent, Reason: queue.ReasonStop}
	_, _ = queue.Produce(os.Getenv, t, false, time.Now())
}

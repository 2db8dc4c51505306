// Package judge is the first of the hook's gates: the capture hook's
// reject rule ([Judge]) and an init that applies it before almost anything
// else in the program initialises. Go initialises a package once the
// packages it imports are initialised, taking ready packages in
// import-path order, so a package waits for every ready package whose
// path sorts before the last of its imports to be ready. This package
// imports only the standard library's os, io, bytes and encoding/json and
// cairn's leaf packages event, typed and the agents' specs
// (agent/registry, agent/spec, agent/*/hooks): never path/filepath, os/exec, sort,
// runtime/debug, crypto/rand or golang.org/x/sys, which sort late and
// would make it wait for most of the program's small packages (measured
// with GODEBUG=inittrace=1: its init runs after about 75 initialisers,
// where package hookgate's, which needs the file system's package fsx,
// runs after about 115; TestGateRunsBeforeHeavyPackages holds the
// ceiling, and package hookgate/toolgate, which imports this one and
// leaves as light, runs right after it).
//
// For `cairn hook EVENT` (Claude Code) and `cairn hook AGENT EVENT` of a
// capture-only event (a tool ran, a reply) or of the hook before a tool
// call, its init reads the payload, and leaves it ([Read]) to the next
// inits: a tool call is judged against the anchor map in package
// hookgate/toolgate's, which also answers a tool's output with nothing to
// capture (a capture-only event other than a reply whose payload holds no
// typed prefix: it exits 0 having written nothing, once it has started a
// background sync if the log changed under the anchor map), a reply's
// session is queued in package hookgate's, and a payload that holds a
// typed prefix goes on to hookgate/accept.
package judge

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// Verdict is what the rule says of an event's payload.
type Verdict int

// Verdicts.
const (
	// Capture: the event is not capture-only, or its payload may hold a
	// typed prefix; the full hook decodes and answers it.
	Capture Verdict = iota
	// Nothing: a JSON object without a typed prefix; nothing to capture.
	Nothing
	// Invalid: no typed prefix, and not a JSON object; the full hook
	// reports it.
	Invalid
)

// Judge is the reject rule, in one place: a capture-only event (a tool
// ran, a reply) whose payload holds no typed prefix has nothing to
// capture.
func Judge(kind event.Kind, payload []byte) Verdict {
	if !kind.CaptureOnly() || typed.MightContain(string(payload)) {
		return Capture
	}
	if t := bytes.TrimSpace(payload); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return Invalid
	}
	return Nothing
}

// Call is a hook call whose payload this package's init read.
type Call struct {
	// Agent is the agent's event table, Name the event's name as the
	// agent spells it, Kind its kind.
	Agent spec.Spec
	Name  string
	Kind  event.Kind
	// Before is a tool call the anchor map can answer (the agent reads
	// it through its event table).
	Before bool
	// Payload is what was read of stdin: all of it when OK.
	Payload []byte
	// OK: stdin was read whole, within [event.MaxPayload].
	OK bool
}

// call is what init read; read reports whether it read stdin.
var (
	call Call
	read bool
)

// Read returns the hook call whose payload init read; ok is false when it
// read nothing (not a hook call, or an event no gate judges).
func Read() (c Call, ok bool) { return call, read }

func init() {
	agent, name, ok := Args(os.Args)
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
	call = Call{Agent: a, Name: name, Kind: kind, Before: before, Payload: data, OK: err == nil && len(data) <= event.MaxPayload}
	read = true
	// A tool's output with nothing to capture exits in package
	// hookgate/toolgate's init, next, which first starts a background sync
	// if the call changed the log (a pull); a reply with nothing to
	// capture has its session queued in package hookgate's.
}

// Args reads `cairn hook EVENT` (Claude Code's) and `cairn hook AGENT
// EVENT` from args.
func Args(args []string) (agent, name string, ok bool) {
	switch {
	case len(args) == 3 && args[1] == "hook":
		return registry.Default, args[2], true
	case len(args) == 4 && args[1] == "hook":
		return args[2], args[3], true
	}
	return "", "", false
}

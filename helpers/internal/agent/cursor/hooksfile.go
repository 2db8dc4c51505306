package cursor

// The project's .cursor/hooks.json, edited as an [agent.Object]:
// cairn's entries are added and exactly those removed; every other key,
// entry and value is kept as written and in its order. The file is
// written back indented with two spaces.
//
// Its shape (https://cursor.com/docs/hooks, Configuration):
//
//	{"version": 1, "hooks": {"sessionStart": [{"command": "...", "timeout": 120}], ...}}
//
// Each event maps to a flat array of definitions (no matcher groups as in
// Claude Code's settings); a definition's command runs from the project's
// root, its timeout is in seconds, and its matcher (postToolUse's) is a
// regular expression on the tool's name.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

// errHooksFile marks a .cursor/hooks.json that cairn cannot edit (not a
// JSON object, or hooks or one of its events of another type): the person
// fixes it by hand.
var errHooksFile = errors.New("cannot edit .cursor/hooks.json")

// marker is in the command of every hook cairn registers: any definition
// whose command holds it is cairn's.
const marker = launcher.Path + " --agent " + hooks.Agent + " "

// command is the command the project's hooks.json runs for Cursor's event
// name: the committed launcher, by its path from the project's root (the
// working directory Cursor gives project hooks), so the file names nothing
// of one machine.
func command(name string) string { return marker + name }

// entry is one hook definition as cairn writes it.
type entry struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
	Matcher string `json:"matcher,omitempty"`
}

// parseObject reads a JSON object as Cursor does: a key given twice keeps
// its first place and its last value.
func parseObject(data []byte) (agent.Object, error) {
	o, err := agent.ParseObject(data)
	return o.Unique(), err
}

// file is a parsed hooks.json: the top-level object and its hooks, each
// event's definitions as written.
type file struct {
	top    agent.Object
	events agent.Object // the hooks object
	defs   map[string][]json.RawMessage
}

// isBlank reports whether data holds nothing but white space.
func isBlank(data []byte) bool { return len(bytes.TrimSpace(data)) == 0 }

// parseFile reads hooks.json; an empty file is an empty configuration.
func parseFile(data []byte) (*file, error) {
	f := &file{defs: map[string][]json.RawMessage{}}
	if isBlank(data) {
		return f, nil
	}
	top, err := parseObject(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errHooksFile, err)
	}
	f.top = top
	raw, ok := top.Get("hooks")
	if !ok || string(raw) == "null" {
		return f, nil
	}
	if f.events, err = parseObject(raw); err != nil {
		return nil, fmt.Errorf("%w: hooks: %w", errHooksFile, err)
	}
	for _, m := range f.events {
		if string(m.Value) == "null" {
			continue
		}
		var defs []json.RawMessage
		if err := json.Unmarshal(m.Value, &defs); err != nil {
			return nil, fmt.Errorf("%w: hooks.%s is not a list of hooks", errHooksFile, m.Key)
		}
		f.defs[m.Key] = defs
	}
	return f, nil
}

// commandOf is a definition's command, if it has one.
func commandOf(def json.RawMessage) string {
	var d struct {
		Command any `json:"command"`
	}
	if json.Unmarshal(def, &d) != nil {
		return ""
	}
	s, _ := d.Command.(string)
	return s
}

// isCairn reports whether a definition is one cairn registered.
func isCairn(def json.RawMessage) bool { return strings.Contains(commandOf(def), marker) }

// exact reports whether f has, for every event of [hooks.Events], exactly
// cairn's definition, and no other definition of cairn's anywhere.
func (f *file) exact() bool {
	want := map[string]string{}
	for _, h := range hooks.Events {
		want[h.Event] = string(definition(h))
	}
	found := map[string]bool{}
	for name, defs := range f.defs {
		for _, d := range defs {
			if !isCairn(d) {
				continue
			}
			if found[name] || string(compact(d)) != want[name] {
				return false
			}
			found[name] = true
		}
	}
	return len(found) == len(want)
}

// definition is cairn's definition for h, compact.
func definition(h spec.Hook) json.RawMessage {
	raw, _ := json.Marshal(entry{Command: command(h.Event), Timeout: h.Timeout, Matcher: h.Matcher})
	return raw
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// removeCairn takes cairn's definitions out of f; an event left with none
// by that is removed, and so is a hooks object left empty. It reports
// whether it removed anything.
func (f *file) removeCairn() bool {
	removed := false
	keys := make([]string, len(f.events))
	for i, m := range f.events {
		keys[i] = m.Key
	}
	for _, key := range keys {
		defs, ok := f.defs[key]
		if !ok {
			continue
		}
		var kept []json.RawMessage
		for _, d := range defs {
			if isCairn(d) {
				removed = true
			} else {
				kept = append(kept, d)
			}
		}
		if len(kept) == len(defs) {
			continue
		}
		if len(kept) == 0 {
			f.events = f.events.Delete(key)
			delete(f.defs, key)
			continue
		}
		f.defs[key] = kept
	}
	if removed && len(f.events) == 0 {
		f.top = f.top.Delete("hooks")
		f.events = nil
	}
	return removed
}

// add appends cairn's definition to every event of [hooks.Events].
func (f *file) add() {
	if _, ok := f.top.Get("version"); !ok && len(f.top) == 0 {
		f.top = f.top.Set("version", json.RawMessage("1"))
	}
	for _, h := range hooks.Events {
		if _, ok := f.events.Get(h.Event); !ok {
			f.events = f.events.Set(h.Event, nil)
		}
		f.defs[h.Event] = append(f.defs[h.Event], definition(h))
	}
}

// encode writes f back: each changed event's list, the hooks object and
// the top-level object, indented with two spaces.
func (f *file) encode() ([]byte, error) {
	if f.events != nil {
		for i, m := range f.events {
			if defs, ok := f.defs[m.Key]; ok {
				raw, err := json.Marshal(defs)
				if err != nil {
					return nil, err
				}
				f.events[i].Value = raw
			}
		}
		f.top = f.top.Set("hooks", f.events.Marshal())
	}
	var b bytes.Buffer
	if err := json.Indent(&b, f.top.Marshal(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// install returns data with exactly cairn's wiring: every event of
// [hooks.Events] runs [command], once, and any other definition of
// cairn's is removed. Every other key and definition is kept. changed is
// false, and out is data, when data already has exactly that.
func install(data []byte) (out []byte, changed bool, err error) {
	f, err := parseFile(data)
	if err != nil {
		return nil, false, err
	}
	if f.exact() {
		return data, false, nil
	}
	f.removeCairn()
	f.add()
	out, err = f.encode()
	return out, err == nil, err
}

// uninstall returns data without cairn's definitions (an event, or the
// hooks object, that their removal left empty goes too: an empty one the
// user wrote before cannot be told apart), and reports whether it removed
// any; empty is true when nothing but the version is left, so that the
// file, of cairn's making, can go.
func uninstall(data []byte) (out []byte, changed, empty bool, err error) {
	f, err := parseFile(data)
	if err != nil {
		return nil, false, false, err
	}
	if !f.removeCairn() {
		return data, false, false, nil
	}
	out, err = f.encode()
	if err != nil {
		return nil, false, false, err
	}
	rest := f.top.Delete("version")
	return out, true, len(rest) == 0, nil
}

// wiredEvents reports which events of [hooks.Events] data does not run cairn's
// launcher for.
func wiredEvents(data []byte) (missing []string, err error) {
	f, err := parseFile(data)
	if err != nil {
		return nil, err
	}
	for _, h := range hooks.Events {
		found := false
		for _, d := range f.defs[h.Event] {
			if commandOf(d) == command(h.Event) {
				found = true
			}
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return missing, nil
}

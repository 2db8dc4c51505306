package claude

// Claude Code's settings.json, edited in place through package
// agent/jsonc (as Gemini CLI's settings are): cairn's hook entries are
// added and exactly those removed, every other key, its order and its
// formatting left as they were. The file is read as strict JSON first
// (encoding/json), as Claude Code reads it.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/jsonc"
)

// marker identifies the plugin's hook commands: any command that runs it
// is cairn's.
const marker = "cairn-hook"

// projectMarker identifies the project wiring's hook commands (the
// committed launcher); see [projectCommand].
const projectMarker = ".cairn/hook"

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type parsed struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func parse(data []byte) (parsed, error) {
	var p parsed
	if len(strings.TrimSpace(string(data))) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("settings.json is not valid JSON: %w", err)
	}
	return p, nil
}

// install adds, for every event of [Events] that has no handler of cairn's,
// a handler that runs command followed by the event name.
func install(data []byte, command string) (out []byte, changed bool, err error) {
	p, err := parse(data)
	if err != nil {
		return nil, false, err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte("{}\n")
	}
	doc, err := jsonc.Parse(data)
	if err != nil {
		return nil, false, fmt.Errorf("settings.json: %w", err)
	}
	for _, h := range Events {
		if hasCairn(p, h.Event) {
			continue
		}
		g := group{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Command: command + " " + h.Event, Timeout: h.Timeout}}}
		if err := addGroup(doc, h.Event, g); err != nil {
			return nil, false, fmt.Errorf("add %s hook: %w", h.Event, err)
		}
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	return doc.Bytes(), true, nil
}

// addGroup appends g to the event's groups in doc, adding the event, and
// the hooks object, where missing.
func addGroup(doc *jsonc.Doc, event string, g group) error {
	hv := doc.Root().Get("hooks")
	if hv.Kind() == 0 || hv.Kind() == 'n' {
		doc.Root().Delete("hooks")
		return doc.Root().Set("hooks", map[string][]group{event: {g}})
	}
	ev := hv.Get(event)
	if ev.Kind() == 0 || ev.Kind() == 'n' {
		hv.Delete(event)
		return hv.Set(event, []group{g})
	}
	return ev.Append(g)
}

// uninstall returns data without cairn's hook handlers: a handler of
// cairn's is removed from its group, a group left with no handler is
// removed, and an event, or the hooks object, that cairn's removal left
// empty is removed too. An empty event or hooks object that was there
// before Install cannot be told apart and is removed as well.
func uninstall(data []byte) (out []byte, changed bool, err error) {
	p, err := parse(data)
	if err != nil {
		return nil, false, err
	}
	if len(p.Hooks) == 0 {
		return data, false, nil
	}
	doc, err := jsonc.Parse(data)
	if err != nil {
		return nil, false, fmt.Errorf("settings.json: %w", err)
	}
	hv := doc.Root().Get("hooks")
	events := make([]string, 0, len(p.Hooks))
	for event := range p.Hooks {
		events = append(events, event)
	}
	sort.Strings(events)
	for _, event := range events {
		groups := p.Hooks[event]
		ev := hv.Get(event)
		removedGroups := 0
		for i := len(groups) - 1; i >= 0; i-- {
			hs := groups[i].Hooks
			var ours []int
			for j, h := range hs {
				if isCairn(h.Command) {
					ours = append(ours, j)
				}
			}
			if len(ours) == 0 {
				continue
			}
			changed = true
			if len(ours) == len(hs) {
				ev.Remove(i)
				removedGroups++
				continue
			}
			for k := len(ours) - 1; k >= 0; k-- {
				ev.Index(i).Get("hooks").Remove(ours[k])
			}
		}
		if removedGroups > 0 && removedGroups == len(groups) {
			hv.Delete(event)
		}
	}
	if !changed {
		return data, false, nil
	}
	if hv.Len() == 0 {
		doc.Root().Delete("hooks")
	}
	return doc.Bytes(), true, nil
}

func hasCairn(p parsed, event string) bool {
	for _, g := range p.Hooks[event] {
		if groupIsCairn(g.Hooks) {
			return true
		}
	}
	return false
}

func groupIsCairn(hs []struct {
	Command string `json:"command"`
}) bool {
	for _, h := range hs {
		if isCairn(h.Command) {
			return true
		}
	}
	return false
}

// isCairn reports whether a hook command is cairn's: the plugin's wrapper
// or the project's launcher.
func isCairn(command string) bool {
	return strings.Contains(command, marker) || strings.Contains(command, projectMarker)
}

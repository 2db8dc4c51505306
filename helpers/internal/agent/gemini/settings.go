package gemini

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
)

// ProjectCommand is how a project's committed .gemini/settings.json runs
// cairn: the committed launcher in agent mode, found through
// $GEMINI_PROJECT_DIR, which Gemini CLI replaces in a hook's command by
// the project's root, shell-quoted, before it runs the command with bash
// (so the variable must not be quoted again here). The file names nothing
// of one machine.
const ProjectCommand = "$GEMINI_PROJECT_DIR/.cairn/hook --agent " + hooks.Agent

// Marker identifies cairn's hook commands in a settings file: any command
// that runs the launcher for this agent is cairn's.
const Marker = ".cairn/hook --agent " + hooks.Agent

// handler is one hook handler as cairn writes it.
type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// group is one hook definition as cairn writes it: a matcher and its
// handlers.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// groupFor is cairn's hook definition of h.
func groupFor(h hooks.Hook) group {
	return group{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Command: ProjectCommand + " " + h.Name(), Timeout: h.Timeout}}}
}

// isCairn reports whether a hook command is cairn's.
func isCairn(command string) bool { return strings.Contains(command, Marker) }

// parseSettings parses a settings file; empty text is an empty object.
func parseSettings(data []byte) ([]byte, *value, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	root, err := parseJSONC(data)
	if err != nil {
		return nil, nil, fmt.Errorf("settings.json: %w", err)
	}
	if root.kind != '{' {
		return nil, nil, fmt.Errorf("settings.json: not a JSON object")
	}
	return data, root, nil
}

// handlerCommand is the command of a handler value ("" if none).
func handlerCommand(h *value) string {
	if c := h.get("command"); c != nil && c.kind == '"' {
		return c.str
	}
	return ""
}

// exact reports whether the hooks value holds cairn's definition of every
// event of hooks.Events, and no other handler of cairn's.
func exact(hv *value) bool {
	if hv == nil || hv.kind != '{' {
		return false
	}
	for _, h := range hooks.Events {
		want := groupFor(h)
		found := false
		groups := hv.get(h.Event)
		if groups == nil || groups.kind != '[' {
			return false
		}
		for _, g := range groups.elems {
			if matchesGroup(g, want) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	n := 0
	for _, m := range hv.members {
		if m.val.kind != '[' {
			continue
		}
		for _, g := range m.val.elems {
			for _, hh := range handlers(g) {
				if isCairn(handlerCommand(hh)) {
					n++
				}
			}
		}
	}
	return n == len(hooks.Events)
}

// matchesGroup reports whether the definition g is exactly want.
func matchesGroup(g *value, want group) bool {
	matcher := ""
	if m := g.get("matcher"); m != nil {
		if m.kind != '"' {
			return false
		}
		matcher = m.str
	}
	hs := handlers(g)
	if matcher != want.Matcher || len(hs) != 1 {
		return false
	}
	h := hs[0]
	t, timeout := h.get("type"), h.get("timeout")
	return t != nil && t.kind == '"' && t.str == want.Hooks[0].Type &&
		handlerCommand(h) == want.Hooks[0].Command &&
		timeout != nil && timeout.kind == 'v' && timeout.lit == fmt.Sprint(want.Hooks[0].Timeout)
}

// handlers are the handler values of a definition.
func handlers(g *value) []*value {
	hs := g.get("hooks")
	if hs == nil || hs.kind != '[' {
		return nil
	}
	return hs.elems
}

// Project returns data (a .gemini/settings.json, JSON with comments) with
// exactly the project wiring: every event of hooks.Events runs
// [ProjectCommand] with the event's name, and no other handler of
// cairn's is there. Other hooks, keys, their order, formatting and
// comments are left as they were.
func Project(data []byte) (out []byte, changed bool, err error) {
	doc, root, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	if len(bytes.TrimSpace(data)) > 0 && exact(root.get("hooks")) {
		return data, false, nil
	}
	out, _, err = Uninstall(doc)
	if err != nil {
		return nil, false, err
	}
	for _, h := range hooks.Events {
		if out, err = addGroup(out, h); err != nil {
			return nil, false, err
		}
	}
	return out, true, nil
}

// addGroup adds cairn's definition of h to the hooks of doc.
func addGroup(doc []byte, h hooks.Hook) ([]byte, error) {
	_, root, err := parseSettings(doc)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(doc, root)
	hv := root.get("hooks")
	switch {
	case hv == nil:
		v := map[string][]group{h.Event: {groupFor(h)}}
		return appendItem(doc, root, unit, func(ind string) string { return memberText("hooks", v, ind, unit) }), nil
	case hv.kind != '{':
		return nil, fmt.Errorf("settings.json: hooks is not an object")
	}
	ev := hv.get(h.Event)
	switch {
	case ev == nil:
		v := []group{groupFor(h)}
		return appendItem(doc, hv, unit, func(ind string) string { return memberText(h.Event, v, ind, unit) }), nil
	case ev.kind != '[':
		return nil, fmt.Errorf("settings.json: hooks.%s is not an array", h.Event)
	}
	return appendItem(doc, ev, unit, func(ind string) string { return render(groupFor(h), ind, unit) }), nil
}

// Uninstall returns data without cairn's hook handlers: a handler of
// cairn's is removed from its definition, a definition left without
// handlers is removed, and an event, or the hooks object, that the
// removal left empty is removed too. Everything else stays as it was.
func Uninstall(data []byte) (out []byte, changed bool, err error) {
	out = data
	for range 10000 {
		doc, root, err := parseSettings(out)
		if err != nil {
			return nil, false, err
		}
		next, ok := removeOne(doc, root)
		if !ok {
			if !changed {
				return data, false, nil
			}
			return out, true, nil
		}
		out, changed = next, true
	}
	return nil, false, fmt.Errorf("settings.json: too many of cairn's hooks")
}

// removeOne cuts the first handler of cairn's in doc, with what its
// removal leaves empty; ok is false when there is none.
func removeOne(doc []byte, root *value) ([]byte, bool) {
	hv := root.get("hooks")
	if hv == nil || hv.kind != '{' {
		return doc, false
	}
	for mi, m := range hv.members {
		if m.val.kind != '[' {
			continue
		}
		for gi, g := range m.val.elems {
			hs := handlers(g)
			for hi, h := range hs {
				if !isCairn(handlerCommand(h)) {
					continue
				}
				switch {
				case len(hs) > 1:
					return removeElem(doc, g.get("hooks"), hi), true
				case len(m.val.elems) > 1:
					return removeElem(doc, m.val, gi), true
				case len(hv.members) > 1:
					return removeMember(doc, hv, mi), true
				}
				for ri := len(root.members) - 1; ri >= 0; ri-- {
					if root.members[ri].val == hv {
						return removeMember(doc, root, ri), true
					}
				}
			}
		}
	}
	return doc, false
}

// Wired reports whether settings data runs the project launcher for every
// event cairn needs; missing lists the events that do not.
func Wired(data []byte) (missing []string, err error) {
	_, root, err := parseSettings(data)
	if err != nil {
		return nil, err
	}
	hv := root.get("hooks")
	for _, h := range hooks.Events {
		found := false
		if hv != nil {
			if groups := hv.get(h.Event); groups != nil {
				for _, g := range groups.elems {
					for _, hh := range handlers(g) {
						if handlerCommand(hh) == ProjectCommand+" "+h.Name() {
							found = true
						}
					}
				}
			}
		}
		if !found {
			missing = append(missing, h.Name())
		}
	}
	return missing, nil
}

// HasCairn reports whether settings data has any hook handler of cairn's.
func HasCairn(data []byte) bool {
	doc, root, err := parseSettings(data)
	if err != nil {
		return false
	}
	_, ok := removeOne(doc, root)
	return ok
}

// Disabled reports whether settings data turns Gemini CLI's hooks off
// (hooksConfig.enabled false).
func Disabled(data []byte) bool {
	_, root, err := parseSettings(data)
	if err != nil {
		return false
	}
	v := root.get("hooksConfig").get("enabled")
	return v != nil && v.lit == "false"
}

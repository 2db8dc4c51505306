package gemini

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/jsonc"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

// projectCommand is how a project's committed .gemini/settings.json runs
// cairn: the committed launcher in agent mode, found through
// $GEMINI_PROJECT_DIR, which Gemini CLI replaces in a hook's command by
// the project's root, shell-quoted, before it runs the command with bash
// (so the variable must not be quoted again here). The file names nothing
// of one machine.
const projectCommand = "$GEMINI_PROJECT_DIR/.cairn/hook --agent " + hooks.Agent

// marker identifies cairn's hook commands in a settings file: any command
// that runs the launcher for this agent is cairn's.
const marker = ".cairn/hook --agent " + hooks.Agent

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
func groupFor(h spec.Hook) group {
	return group{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Command: projectCommand + " " + h.Event, Timeout: h.Timeout}}}
}

// isCairn reports whether a hook command is cairn's.
func isCairn(command string) bool { return strings.Contains(command, marker) }

// parseSettings parses a settings file, JSON with comments (Gemini CLI
// strips // and /* */ comments, then JSON.parse); empty text is an empty
// object. Package jsonc edits it in place, so every other key, its order,
// its formatting and the comments stay as they were.
func parseSettings(data []byte) (*jsonc.Doc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}\n")
	}
	doc, err := jsonc.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("settings.json: %w", err)
	}
	if doc.Root().Kind() != '{' {
		return nil, fmt.Errorf("settings.json: not a JSON object")
	}
	return doc, nil
}

// handlerCommand is the command of a handler value ("" if none).
func handlerCommand(h jsonc.Node) string {
	if c := h.Get("command"); c.Kind() == '"' {
		return c.Str()
	}
	return ""
}

// exact reports whether the hooks value holds cairn's definition of every
// event of hooks.Events, and no other handler of cairn's.
func exact(hv jsonc.Node) bool {
	if hv.Kind() != '{' {
		return false
	}
	for _, h := range hooks.Events {
		want := groupFor(h)
		found := false
		groups := hv.Get(h.Source())
		if groups.Kind() != '[' {
			return false
		}
		for i := range groups.Len() {
			if matchesGroup(groups.Index(i), want) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	n := 0
	for mi := range hv.Len() {
		m := hv.Index(mi)
		if m.Kind() != '[' {
			continue
		}
		for gi := range m.Len() {
			for _, hh := range handlers(m.Index(gi)) {
				if isCairn(handlerCommand(hh)) {
					n++
				}
			}
		}
	}
	return n == len(hooks.Events)
}

// matchesGroup reports whether the definition g is exactly want.
func matchesGroup(g jsonc.Node, want group) bool {
	matcher := ""
	if m := g.Get("matcher"); m.Kind() != 0 {
		if m.Kind() != '"' {
			return false
		}
		matcher = m.Str()
	}
	hs := handlers(g)
	if matcher != want.Matcher || len(hs) != 1 {
		return false
	}
	h := hs[0]
	t, timeout := h.Get("type"), h.Get("timeout")
	return t.Kind() == '"' && t.Str() == want.Hooks[0].Type &&
		handlerCommand(h) == want.Hooks[0].Command &&
		timeout.Kind() == '0' && timeout.Str() == fmt.Sprint(want.Hooks[0].Timeout)
}

// handlers are the handler values of a definition.
func handlers(g jsonc.Node) []jsonc.Node {
	hs := g.Get("hooks")
	if hs.Kind() != '[' {
		return nil
	}
	out := make([]jsonc.Node, hs.Len())
	for i := range out {
		out[i] = hs.Index(i)
	}
	return out
}

// projectSettings returns data (a .gemini/settings.json, JSON with comments) with
// exactly the project wiring: every event of hooks.Events runs
// [projectCommand] with the event's name, and no other handler of
// cairn's is there. Other hooks, keys, their order, formatting and
// comments are left as they were.
func projectSettings(data []byte) (out []byte, changed bool, err error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	if len(bytes.TrimSpace(data)) > 0 && exact(doc.Root().Get("hooks")) {
		return data, false, nil
	}
	out, _, err = uninstall(doc.Bytes())
	if err != nil {
		return nil, false, err
	}
	if doc, err = parseSettings(out); err != nil {
		return nil, false, err
	}
	for _, h := range hooks.Events {
		if err := addGroup(doc, h); err != nil {
			return nil, false, err
		}
	}
	return doc.Bytes(), true, nil
}

// addGroup adds cairn's definition of h to the hooks of doc.
func addGroup(doc *jsonc.Doc, h spec.Hook) error {
	hv := doc.Root().Get("hooks")
	switch hv.Kind() {
	case 0:
		return doc.Root().Set("hooks", map[string][]group{h.Source(): {groupFor(h)}})
	case '{':
	default:
		return fmt.Errorf("settings.json: hooks is not an object")
	}
	ev := hv.Get(h.Source())
	switch ev.Kind() {
	case 0:
		return hv.Set(h.Source(), []group{groupFor(h)})
	case '[':
		return ev.Append(groupFor(h))
	}
	return fmt.Errorf("settings.json: hooks.%s is not an array", h.Source())
}

// uninstall returns data without cairn's hook handlers: a handler of
// cairn's is removed from its definition, a definition left without
// handlers is removed, and an event, or the hooks object, that the
// removal left empty is removed too. Everything else stays as it was.
func uninstall(data []byte) (out []byte, changed bool, err error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, false, err
	}
	for range 10000 {
		if !removeOne(doc) {
			if !changed {
				return data, false, nil
			}
			return doc.Bytes(), true, nil
		}
		changed = true
	}
	return nil, false, fmt.Errorf("settings.json: too many of cairn's hooks")
}

// removeOne cuts the first handler of cairn's in doc, with what its
// removal leaves empty; it reports whether there was one.
func removeOne(doc *jsonc.Doc) bool {
	root := doc.Root()
	hv := root.Get("hooks")
	if hv.Kind() != '{' {
		return false
	}
	for mi := range hv.Len() {
		m := hv.Index(mi)
		if m.Kind() != '[' {
			continue
		}
		for gi := range m.Len() {
			g := m.Index(gi)
			hs := handlers(g)
			for hi, h := range hs {
				if !isCairn(handlerCommand(h)) {
					continue
				}
				switch {
				case len(hs) > 1:
					g.Get("hooks").Remove(hi)
				case m.Len() > 1:
					m.Remove(gi)
				case hv.Len() > 1:
					hv.Remove(mi)
				default:
					for ri := root.Len() - 1; ri >= 0; ri-- {
						if root.Index(ri) == hv {
							root.Remove(ri)
							break
						}
					}
				}
				return true
			}
		}
	}
	return false
}

// wired reports whether settings data runs the project launcher for every
// event cairn needs; missing lists the events that do not.
func wired(data []byte) (missing []string, err error) {
	doc, err := parseSettings(data)
	if err != nil {
		return nil, err
	}
	hv := doc.Root().Get("hooks")
	for _, h := range hooks.Events {
		found := false
		groups := hv.Get(h.Source())
		for gi := range groups.Len() {
			for _, hh := range handlers(groups.Index(gi)) {
				if handlerCommand(hh) == projectCommand+" "+h.Event {
					found = true
				}
			}
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return missing, nil
}

// hasCairn reports whether settings data has any hook handler of cairn's.
func hasCairn(data []byte) bool {
	doc, err := parseSettings(data)
	return err == nil && removeOne(doc)
}

// disabled reports whether settings data turns Gemini CLI's hooks off
// (hooksConfig.enabled false).
func disabled(data []byte) bool {
	doc, err := parseSettings(data)
	return err == nil && doc.Root().Get("hooksConfig").Get("enabled").Kind() == 'f'
}

package codex

// The project's .codex/hooks.json, edited in place: cairn's matcher groups
// are added and exactly those removed; every other key, event, group and
// handler keeps its place and content (the file is re-indented with two
// spaces). Codex keys a person's trust in a hook by its position (event,
// group index, handler index), so a group already right is never moved.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

// hookCommand is the command cairn registers for Codex's event: the committed
// launcher at the root of the session's work tree. Codex runs hooks with
// `$SHELL -lc` in the session's working directory, which may be a
// subdirectory, and names no project directory in their environment; sh
// finds the root (git, else the working directory), so the file names
// nothing of one machine and works from any shell.
func hookCommand(event string) string {
	return `sh -c 'exec "$(git rev-parse --show-toplevel 2>/dev/null || pwd)/` + launcher.Path + `" --agent ` + hooks.Agent + ` ` + event + `'`
}

// isCairn reports whether a hook command is cairn's: it runs the launcher.
func isCairn(command string) bool { return strings.Contains(command, launcher.Path) }

// handler is one hook handler as hooks.json writes it.
type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
	// AdditionalContextLimit, when set, is Codex's spill threshold for
	// this hook's context, in estimated tokens; 0 turns spilling off.
	AdditionalContextLimit *int `json:"additionalContextLimit,omitempty"`
}

// group is one matcher group as hooks.json writes it.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// wanted is cairn's matcher group for h.
func wanted(h spec.Hook) group {
	hd := handler{Type: "command", Command: hookCommand(h.Event), Timeout: h.Timeout}
	if takesContext(h.Kind) {
		off := 0
		hd.AdditionalContextLimit = &off
	}
	return group{Matcher: h.Matcher, Hooks: []handler{hd}}
}

// marshal encodes v as compact JSON without escaping <, > and & (a shell
// command's redirections stay readable); v is always encodable.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// hooksFile is a parsed hooks.json: its top-level keys and, in order, the
// events of its "hooks" object with their groups.
type hooksFile struct {
	top    agent.Object
	events agent.Object // the "hooks" object's keys
}

// parseHooks reads hooks.json; empty data is an empty file.
func parseHooks(data []byte) (*hooksFile, error) {
	f := &hooksFile{}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	top, err := agent.ParseObject(data)
	if err != nil {
		return nil, fmt.Errorf(".codex/hooks.json is not a JSON object: %w", err)
	}
	f.top = top
	if i := top.Find("hooks"); i >= 0 {
		if f.events, err = agent.ParseObject(top[i].Value); err != nil {
			return nil, fmt.Errorf(".codex/hooks.json: hooks is not an object: %w", err)
		}
		for _, ev := range f.events {
			var groups []json.RawMessage
			if err := json.Unmarshal(ev.Value, &groups); err != nil {
				return nil, fmt.Errorf(".codex/hooks.json: hooks.%s is not a list: %w", ev.Key, err)
			}
		}
	}
	return f, nil
}

// groups returns event's matcher groups.
func (f *hooksFile) groups(event string) []json.RawMessage {
	i := f.events.Find(event)
	if i < 0 {
		return nil
	}
	var groups []json.RawMessage
	_ = json.Unmarshal(f.events[i].Value, &groups) // checked by parseHooks
	return groups
}

// setGroups replaces event's groups; none removes the event.
func (f *hooksFile) setGroups(event string, groups []json.RawMessage) {
	i := f.events.Find(event)
	if len(groups) == 0 {
		if i >= 0 {
			f.events = append(f.events[:i], f.events[i+1:]...)
		}
		return
	}
	v := marshal(groups)
	if i < 0 {
		f.events = append(f.events, agent.Member{Key: event, Value: v})
		return
	}
	f.events[i].Value = v
}

// bytes writes the file back, indented; without events the "hooks" key
// goes, and an object left with nothing is nil.
func (f *hooksFile) bytes() []byte {
	top := append(agent.Object(nil), f.top...)
	i := top.Find("hooks")
	switch {
	case len(f.events) == 0 && i >= 0:
		top = append(top[:i], top[i+1:]...)
	case len(f.events) > 0 && i >= 0:
		top[i].Value = f.events.Marshal()
	case len(f.events) > 0:
		top = append(top, agent.Member{Key: "hooks", Value: f.events.Marshal()})
	}
	if len(top) == 0 {
		return nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, top.Marshal(), "", "  "); err != nil {
		return top.Marshal() // raw values came from a valid file
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// rawGroup is the part of a matcher group cairn reads.
type rawGroup struct {
	Matcher *string
	Hooks   []json.RawMessage
}

// cairnHandlers reads a matcher group (its keys exactly as Codex reads
// them) and returns the indexes of its handlers that are cairn's.
func cairnHandlers(g json.RawMessage) (rawGroup, []int) {
	var rg rawGroup
	ms, err := agent.ParseObject(g)
	if err != nil {
		return rg, nil
	}
	if i := ms.Find("matcher"); i >= 0 {
		var m string
		if json.Unmarshal(ms[i].Value, &m) == nil {
			rg.Matcher = &m
		}
	}
	if i := ms.Find("hooks"); i < 0 || json.Unmarshal(ms[i].Value, &rg.Hooks) != nil {
		return rawGroup{Matcher: rg.Matcher}, nil
	}
	var ours []int
	for i, h := range rg.Hooks {
		hm, err := agent.ParseObject(h)
		if err != nil {
			continue
		}
		var command string
		if j := hm.Find("command"); j >= 0 && json.Unmarshal(hm[j].Value, &command) == nil && isCairn(command) {
			ours = append(ours, i)
		}
	}
	return rg, ours
}

// sameJSON reports whether two JSON values are equal as values.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}

// install returns data with cairn's matcher group for every event of
// [hooks.Events]: a group exactly cairn's stays where it is; a handler of
// cairn's that differs (an older cairn's) is removed and the current group
// appended; handlers of cairn's on events it no longer registers go.
// changed is false when data was already so.
func install(data []byte) (out []byte, changed bool, err error) {
	f, err := parseHooks(data)
	if err != nil {
		return nil, false, err
	}
	registered := map[string]bool{}
	for _, h := range hooks.Events {
		registered[h.Event] = true
		want := marshal(wanted(h))
		var keep []json.RawMessage
		found := false
		for _, g := range f.groups(h.Event) {
			rg, ours := cairnHandlers(g)
			switch {
			case len(ours) == 0:
				keep = append(keep, g)
			case !found && len(rg.Hooks) == 1 && sameJSON(g, want):
				keep = append(keep, g)
				found = true
			default:
				changed = true
				if g = withoutHandlers(g, rg, ours); g != nil {
					keep = append(keep, g)
				}
			}
		}
		if !found {
			keep = append(keep, want)
			changed = true
		}
		f.setGroups(h.Event, keep)
	}
	for _, ev := range append(agent.Object(nil), f.events...) {
		if registered[ev.Key] {
			continue
		}
		if groups, removed := removeCairn(f.groups(ev.Key)); removed {
			f.setGroups(ev.Key, groups)
			changed = true
		}
	}
	if !changed {
		return data, false, nil
	}
	return f.bytes(), true, nil
}

// uninstall returns data without cairn's handlers: a group left with no
// handler goes, then an event left with no group, then the hooks object
// left empty. out is nil when nothing at all is left (the file was
// cairn's own). changed is false when data had nothing of cairn's.
func uninstall(data []byte) (out []byte, changed bool, err error) {
	f, err := parseHooks(data)
	if err != nil {
		return nil, false, err
	}
	for _, ev := range append(agent.Object(nil), f.events...) {
		if groups, removed := removeCairn(f.groups(ev.Key)); removed {
			f.setGroups(ev.Key, groups)
			changed = true
		}
	}
	if !changed {
		return data, false, nil
	}
	return f.bytes(), true, nil
}

// removeCairn returns groups without cairn's handlers (and without the
// groups that leaves empty), and whether it removed any.
func removeCairn(groups []json.RawMessage) ([]json.RawMessage, bool) {
	var out []json.RawMessage
	removed := false
	for _, g := range groups {
		rg, ours := cairnHandlers(g)
		if len(ours) == 0 {
			out = append(out, g)
			continue
		}
		removed = true
		if g = withoutHandlers(g, rg, ours); g != nil {
			out = append(out, g)
		}
	}
	return out, removed
}

// withoutHandlers returns the group g without the handlers at ours, its
// other keys kept; nil when no handler is left.
func withoutHandlers(g json.RawMessage, rg rawGroup, ours []int) json.RawMessage {
	if len(ours) == len(rg.Hooks) {
		return nil
	}
	skip := map[int]bool{}
	for _, i := range ours {
		skip[i] = true
	}
	var rest []json.RawMessage
	for i, h := range rg.Hooks {
		if !skip[i] {
			rest = append(rest, h)
		}
	}
	ms, err := agent.ParseObject(g)
	if err != nil {
		return nil
	}
	ms[ms.Find("hooks")].Value = marshal(rest)
	return ms.Marshal()
}

// Registration is where cairn's handler for one event sits in hooks.json
// (Codex's trust key is built from it), and the handler as written.
type Registration struct {
	Event   spec.Hook
	Group   int // index of the matcher group in the event's list
	Handler int // index of the handler in the group
	Matcher *string
	// Raw is the handler's JSON.
	Raw json.RawMessage
}

// Registered returns, for each event of [hooks.Events], cairn's first
// handler in data, and the events that have none.
func Registered(data []byte) (regs []Registration, missing []string, err error) {
	f, err := parseHooks(data)
	if err != nil {
		return nil, nil, err
	}
	for _, h := range hooks.Events {
		found := false
		for gi, g := range f.groups(h.Event) {
			rg, ours := cairnHandlers(g)
			if len(ours) == 0 {
				continue
			}
			regs = append(regs, Registration{Event: h, Group: gi, Handler: ours[0], Matcher: rg.Matcher, Raw: rg.Hooks[ours[0]]})
			found = true
			break
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return regs, missing, nil
}

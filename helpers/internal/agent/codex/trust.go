package codex

// What Codex asks of each person before a project's hooks run, read from
// their own Codex config (never written): Codex 0.169 loads a project's
// .codex/ only for a project the person trusts ([projects."<root>"]
// trust_level = "trusted" in $CODEX_HOME/config.toml), and runs a
// project's hook only once the person trusted that exact hook
// ([hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
// trusted_hash = "sha256:..."), the hash being of the hook's definition. A
// hook changed since is skipped until trusted again. The config is read
// with github.com/pelletier/go-toml/v2 (this package is its one
// importer), as Codex reads it: whole, or not at all.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// sessionEndMaxTimeout is the timeout Codex clamps SessionEnd hooks to.
const sessionEndMaxTimeout = 3

// defaultTimeout is the timeout Codex gives a hook that names none.
const defaultTimeout = 600

// Hash is Codex's trust hash of the hook handler raw (its JSON in
// hooks.json) registered for the event key (e.g. "session_start") in a
// matcher group with matcher: SHA-256 over the canonical JSON (sorted
// keys, no spaces) of the normalized definition, as Codex 0.169 records
// it in trusted_hash. ok is false for a handler Codex would not run as a
// command.
func Hash(eventKey string, matcher *string, raw json.RawMessage) (hash string, ok bool) {
	ms, err := agent.ParseObject(raw)
	if err != nil {
		return "", false
	}
	field := func(k string) (json.RawMessage, bool) {
		if i := ms.Find(k); i >= 0 {
			return ms[i].Value, true
		}
		return nil, false
	}
	var typ, command string
	if v, ok := field("type"); !ok || json.Unmarshal(v, &typ) != nil || typ != "command" {
		return "", false
	}
	if v, ok := field("command"); !ok || json.Unmarshal(v, &command) != nil {
		return "", false
	}
	timeout := uint64(defaultTimeout)
	v, ok := field("timeout")
	if !ok {
		v, ok = field("timeoutSec")
	}
	if ok && string(v) != "null" {
		if json.Unmarshal(v, &timeout) != nil {
			return "", false
		}
	}
	timeout = max(timeout, 1)
	if eventKey == "session_end" {
		timeout = min(timeout, sessionEndMaxTimeout)
	}
	async := false
	if v, ok := field("async"); ok && json.Unmarshal(v, &async) != nil {
		return "", false
	}
	// The handler's keys, sorted; a key left out when unset, as Codex's
	// TOML round trip drops it.
	h := []string{}
	if v, ok := field("additionalContextLimit"); ok && string(v) != "null" {
		var n uint64
		if json.Unmarshal(v, &n) != nil {
			return "", false
		}
		h = append(h, `"additionalContextLimit":`+strconv.FormatUint(n, 10))
	}
	h = append(h, `"async":`+strconv.FormatBool(async), `"command":`+canonicalString(command))
	if v, ok := field("statusMessage"); ok && string(v) != "null" {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		h = append(h, `"statusMessage":`+canonicalString(s))
	}
	h = append(h, `"timeout":`+strconv.FormatUint(timeout, 10), `"type":"command"`)
	sort.Strings(h)
	identity := `{"event_name":` + canonicalString(eventKey) + `,"hooks":[{` + strings.Join(h, ",") + `}]`
	if matcher != nil {
		identity += `,"matcher":` + canonicalString(*matcher)
	}
	identity += "}"
	sum := sha256.Sum256([]byte(identity))
	return "sha256:" + hex.EncodeToString(sum[:]), true
}

// canonicalString writes s as a JSON string the way Codex's serializer
// does: only the quote, the backslash and control characters escaped.
func canonicalString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TrustKey is Codex's key of a hook's trust record: the hooks.json path,
// the event key and the positions.
func TrustKey(hooksJSON string, r Registration) string {
	return fmt.Sprintf("%s:%s:%d:%d", hooksJSON, EventKey(r.Event.Event), r.Group, r.Handler)
}

// userConfig is what cairn reads of a person's Codex config.toml: its
// tables, by path, read with github.com/pelletier/go-toml/v2.
type userConfig struct {
	root map[string]any
}

// Value returns the string or boolean (as "true", "false") at the dotted
// path, as the TOML file sets it.
func (c userConfig) Value(path ...string) (string, bool) {
	var v any = c.root
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if v, ok = m[k]; !ok {
			return "", false
		}
	}
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// parseUserConfig reads a config.toml. It never fails: a file that is not
// TOML reads as empty (Codex itself refuses to start with it, so nothing
// in it is trusted).
func parseUserConfig(data string) userConfig {
	var root map[string]any
	if toml.Unmarshal([]byte(data), &root) != nil {
		root = nil
	}
	return userConfig{root: root}
}

// EventKey is Codex's own key of its event name, in its hook trust
// records: the name in snake case (PreToolUse: pre_tool_use).
func EventKey(name string) string {
	var b strings.Builder
	for i, r := range name {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// takesContext reports whether the answer to an event of kind can carry
// context for the model: cairn registers those events with Codex's spill
// limit off (additionalContextLimit 0), as its own budget bounds the text.
func takesContext(k event.Kind) bool {
	return k == event.Start || k == event.Prompt || k == event.BeforeTool
}

package codex

// What Codex asks of each person before a project's hooks run, read from
// their own Codex config (never written): Codex 0.169 loads a project's
// .codex/ only for a project the person trusts ([projects."<root>"]
// trust_level = "trusted" in $CODEX_HOME/config.toml), and runs a
// project's hook only once the person trusted that exact hook
// ([hooks.state."<hooks.json path>:<event>:<group>:<handler>"]
// trusted_hash = "sha256:..."), the hash being of the hook's definition. A
// hook changed since is skipped until trusted again.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
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
	ms, err := decodeObject(raw)
	if err != nil {
		return "", false
	}
	field := func(k string) (json.RawMessage, bool) {
		if i := find(ms, k); i >= 0 {
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
	return fmt.Sprintf("%s:%s:%d:%d", hooksJSON, r.Event.Key, r.Group, r.Handler)
}

// UserConfig is what cairn reads of a person's Codex config.toml: each
// table's string and boolean values, by the table's path and the key.
type UserConfig struct {
	values map[string]string // path NUL key -> value, strings unquoted
}

func configKey(path []string) string { return strings.Join(path, "\x00") }

// Value returns the string or boolean (as "true", "false") at the dotted
// path, as the TOML file sets it.
func (c UserConfig) Value(path ...string) (string, bool) {
	v, ok := c.values[configKey(path)]
	return v, ok
}

// ParseUserConfig reads the subset of TOML that Codex writes to its
// config.toml and people write by hand: [table] headers with bare and
// quoted keys, and key = value lines (dotted keys too) whose basic or
// literal strings and booleans it keeps. Everything else (numbers, dates,
// arrays, inline tables, multi-line strings, [[arrays of tables]]) is
// stepped over. It never fails: a line it cannot read is skipped.
func ParseUserConfig(data string) UserConfig {
	c := UserConfig{values: map[string]string{}}
	var table []string
	inArrayTable := false
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[[") {
			inArrayTable = true
			continue
		}
		if line[0] == '[' {
			path, rest, ok := parseKey(line[1:])
			rest = strings.TrimSpace(rest)
			if !ok || !strings.HasPrefix(rest, "]") {
				continue
			}
			table, inArrayTable = path, false
			continue
		}
		path, rest, ok := parseKey(line)
		rest = strings.TrimSpace(rest)
		if !ok || !strings.HasPrefix(rest, "=") {
			continue
		}
		rest = strings.TrimSpace(rest[1:])
		// A value that goes on over lines: a multi-line string, or an
		// array or inline table left open; its lines are stepped over.
		switch {
		case strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`):
			delim := rest[:3]
			if !strings.Contains(rest[3:], delim) {
				for i++; i < len(lines) && !strings.Contains(lines[i], delim); i++ {
				}
			}
			continue
		case strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "{"):
			depth := bracketDepth(rest)
			for depth > 0 && i+1 < len(lines) {
				i++
				depth += bracketDepth(lines[i])
			}
			continue
		}
		if inArrayTable {
			continue
		}
		if v, ok := parseScalar(rest); ok {
			c.values[configKey(append(append([]string(nil), table...), path...))] = v
		}
	}
	return c
}

// parseKey reads a dotted key (bare, "basic" or 'literal' parts) from the
// start of s, and returns it with what follows it.
func parseKey(s string) (path []string, rest string, ok bool) {
	for {
		s = strings.TrimLeft(s, " \t")
		var part string
		switch {
		case s == "":
			return nil, "", false
		case s[0] == '"':
			v, n, ok := basicString(s)
			if !ok {
				return nil, "", false
			}
			part, s = v, s[n:]
		case s[0] == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, "", false
			}
			part, s = s[1:1+end], s[2+end:]
		default:
			n := 0
			for n < len(s) && (s[n] == '_' || s[n] == '-' || s[n] >= '0' && s[n] <= '9' || s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
				n++
			}
			if n == 0 {
				return nil, "", false
			}
			part, s = s[:n], s[n:]
		}
		path = append(path, part)
		t := strings.TrimLeft(s, " \t")
		if t == "" || t[0] != '.' {
			return path, s, true
		}
		s = t[1:]
	}
}

// parseScalar reads a string or boolean value followed by nothing but a
// comment.
func parseScalar(s string) (string, bool) {
	var v string
	var n int
	switch {
	case strings.HasPrefix(s, `"`):
		var ok bool
		if v, n, ok = basicString(s); !ok {
			return "", false
		}
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", false
		}
		v, n = s[1:1+end], end+2
	case strings.HasPrefix(s, "true"):
		v, n = "true", 4
	case strings.HasPrefix(s, "false"):
		v, n = "false", 5
	default:
		return "", false
	}
	if tail := strings.TrimSpace(s[n:]); tail != "" && tail[0] != '#' {
		return "", false
	}
	return v, true
}

// basicString reads a "basic string" at the start of s: its value and
// the bytes it took.
func basicString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(s[i])
			case 'u', 'U':
				n := 4
				if s[i] == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", 0, false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil {
					return "", 0, false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", 0, false
			}
		case c == '\\':
			return "", 0, false
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// bracketDepth is how many brackets and braces s opens and leaves open,
// outside strings and comments.
func bracketDepth(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return depth
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		}
	}
	return depth
}

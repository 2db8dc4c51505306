package gemini

// Gemini CLI reads settings.json as JSON with comments (// and /* */,
// stripped before parsing; no trailing commas). cairn edits a project's
// .gemini/settings.json surgically: it parses the text into values with
// their byte spans, and splices in or cuts out exactly its own entries, so
// every other key, its order, its formatting and the comments stay as they
// were.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxDepth caps how deeply values may nest in a settings file.
const maxDepth = 200

// value is one JSON value of a document, with its span [start, end).
type value struct {
	kind       byte // '{', '[', '"' or 'v' (a number, true, false, null)
	start, end int
	members    []member // of an object, in order
	elems      []*value // of an array, in order
	str        string   // of a string, decoded
	lit        string   // of a number, true, false or null: its text
}

// member is one key and its value in an object.
type member struct {
	key   string
	start int // where the key begins
	val   *value
}

// errSyntax is returned for text that is not JSON with comments.
var errSyntax = errors.New("not valid JSON")

// parseJSONC parses data, JSON with comments, into its top-level value.
// Text that JSON.parse would refuse once comments are stripped is an
// error.
func parseJSONC(data []byte) (*value, error) {
	p := &jparser{data: data}
	p.skip()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.pos != len(p.data) {
		return nil, p.errorf("text after the value")
	}
	if !json.Valid(stripComments(data)) {
		return nil, errSyntax
	}
	return v, nil
}

type jparser struct {
	data []byte
	pos  int
}

func (p *jparser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d", errSyntax, fmt.Sprintf(format, args...), p.pos)
}

// skip moves past white space and comments.
func (p *jparser) skip() {
	for p.pos < len(p.data) {
		switch c := p.data[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '/':
			i := bytes.IndexByte(p.data[p.pos:], '\n')
			if i < 0 {
				p.pos = len(p.data)
			} else {
				p.pos += i + 1
			}
		case c == '/' && p.pos+1 < len(p.data) && p.data[p.pos+1] == '*':
			i := bytes.Index(p.data[p.pos+2:], []byte("*/"))
			if i < 0 {
				p.pos = len(p.data)
			} else {
				p.pos += 2 + i + 2
			}
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*value, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end")
	}
	v := &value{start: p.pos}
	switch c := p.data[p.pos]; c {
	case '{':
		v.kind = '{'
		p.pos++
		p.skip()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			break
		}
		for {
			p.skip()
			if p.pos >= len(p.data) || p.data[p.pos] != '"' {
				return nil, p.errorf("want a key")
			}
			keyStart := p.pos
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			p.skip()
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, p.errorf("want ':'")
			}
			p.pos++
			p.skip()
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, member{key: key, start: keyStart, val: val})
			p.skip()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				p.pos++
				break
			}
			return nil, p.errorf("want ',' or '}'")
		}
	case '[':
		v.kind = '['
		p.pos++
		p.skip()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			break
		}
		for {
			p.skip()
			el, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.elems = append(v.elems, el)
			p.skip()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				p.pos++
				break
			}
			return nil, p.errorf("want ',' or ']'")
		}
	case '"':
		v.kind = '"'
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		v.str = s
	default:
		v.kind = 'v'
		for p.pos < len(p.data) && strings.IndexByte("+-.0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", p.data[p.pos]) >= 0 {
			p.pos++
		}
		if p.pos == v.start {
			return nil, p.errorf("unexpected %q", c)
		}
		if !json.Valid(p.data[v.start:p.pos]) {
			return nil, p.errorf("bad literal")
		}
		v.lit = string(p.data[v.start:p.pos])
	}
	v.end = p.pos
	return v, nil
}

// str reads a string literal at p.pos and decodes it.
func (p *jparser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
				return "", p.errorf("bad string")
			}
			return s, nil
		}
		p.pos++
	}
	return "", p.errorf("unterminated string")
}

// stripComments returns data with its comments (outside strings) blanked
// out, as Gemini CLI strips them before parsing.
func stripComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			end := len(out)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for ; i < end; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// get is the value of the last member named key of an object (JSON.parse
// keeps the last of duplicate keys), or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != '{' {
		return nil
	}
	for i := len(v.members) - 1; i >= 0; i-- {
		if v.members[i].key == key {
			return v.members[i].val
		}
	}
	return nil
}

// splice returns data with [start, end) replaced by text.
func splice(data []byte, start, end int, text string) []byte {
	out := make([]byte, 0, len(data)-(end-start)+len(text))
	out = append(out, data[:start]...)
	out = append(out, text...)
	return append(out, data[end:]...)
}

// lineIndent is the white space that begins the line holding pos.
func lineIndent(data []byte, pos int) string {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// beginsLine reports whether only white space is before pos on its line.
func beginsLine(data []byte, pos int) bool {
	start := bytes.LastIndexByte(data[:pos], '\n') + 1
	return len(bytes.Trim(data[start:pos], " \t")) == 0
}

// indentUnit guesses the document's indentation step from its top-level
// object's first member; two spaces when it cannot tell.
func indentUnit(data []byte, root *value) string {
	if root != nil && root.kind == '{' && len(root.members) > 0 && beginsLine(data, root.members[0].start) {
		inner, outer := lineIndent(data, root.members[0].start), lineIndent(data, root.start)
		if u, ok := strings.CutPrefix(inner, outer); ok && u != "" {
			return u
		}
	}
	return "  "
}

// render is v as JSON, indented by unit, its lines after the first
// beginning with indent.
func render(v any, indent, unit string) string {
	b, _ := json.MarshalIndent(v, indent, unit)
	return string(b)
}

// appendItem adds item (rendered JSON: an element of an array, or
// `"key": value` of an object) at the end of container c, on a line of its
// own when c's items are on lines of their own; item is rendered by
// itemAt, given the indentation it will have.
func appendItem(data []byte, c *value, unit string, itemAt func(indent string) string) []byte {
	var last int = -1
	switch c.kind {
	case '{':
		if n := len(c.members); n > 0 {
			last = c.members[n-1].val.end
			if beginsLine(data, c.members[n-1].start) {
				ind := lineIndent(data, c.members[n-1].start)
				return splice(data, last, last, ",\n"+ind+itemAt(ind))
			}
		}
	case '[':
		if n := len(c.elems); n > 0 {
			last = c.elems[n-1].end
			if beginsLine(data, c.elems[n-1].start) {
				ind := lineIndent(data, c.elems[n-1].start)
				return splice(data, last, last, ",\n"+ind+itemAt(ind))
			}
		}
	}
	if last >= 0 {
		return splice(data, last, last, ", "+itemAt(""))
	}
	// An empty container: the item on a line of its own inside it.
	outer := lineIndent(data, c.start)
	ind := outer + unit
	inner := data[c.start+1 : c.end-1]
	if len(bytes.TrimSpace(inner)) == 0 {
		return splice(data, c.start+1, c.end-1, "\n"+ind+itemAt(ind)+"\n"+outer)
	}
	return splice(data, c.start+1, c.start+1, "\n"+ind+itemAt(ind))
}

// removeItem cuts item i (of n) of container c, whose spans are
// starts[i]..ends[i], with its comma: a line that held only the item goes
// with it; an only item leaves the container empty.
func removeItem(data []byte, c *value, starts, ends []int, i int) []byte {
	n := len(starts)
	switch {
	case n == 1:
		return splice(data, c.start+1, c.end-1, "")
	case i < n-1:
		// The item and its comma; the whole line when the item had a line
		// of its own. With a comment before the comma, up to the next
		// item.
		from, to := starts[i], starts[i+1]
		c := skipBlanks(data, ends[i])
		if c < len(data) && data[c] == ',' {
			to = skipBlanks(data, c+1)
			if rest := data[to:]; bytes.HasPrefix(rest, []byte("\n")) || bytes.HasPrefix(rest, []byte("\r\n")) {
				to += bytes.IndexByte(rest, '\n') + 1
				if beginsLine(data, starts[i]) {
					from = bytes.LastIndexByte(data[:starts[i]], '\n') + 1
				}
			}
		}
		return splice(data, from, to, "")
	default:
		// The last item: from the end of the one before it.
		return splice(data, ends[i-1], ends[i], "")
	}
}

// skipBlanks moves past spaces and tabs from pos.
func skipBlanks(data []byte, pos int) int {
	for pos < len(data) && (data[pos] == ' ' || data[pos] == '\t') {
		pos++
	}
	return pos
}

// removeMember cuts member i of object o.
func removeMember(data []byte, o *value, i int) []byte {
	starts, ends := make([]int, len(o.members)), make([]int, len(o.members))
	for j, m := range o.members {
		starts[j], ends[j] = m.start, m.val.end
	}
	return removeItem(data, o, starts, ends, i)
}

// removeElem cuts element i of array a.
func removeElem(data []byte, a *value, i int) []byte {
	starts, ends := make([]int, len(a.elems)), make([]int, len(a.elems))
	for j, e := range a.elems {
		starts[j], ends[j] = e.start, e.end
	}
	return removeItem(data, a, starts, ends, i)
}

// memberText renders `"key": v` with v indented to indent.
func memberText(key string, v any, indent, unit string) string {
	k, _ := json.Marshal(key)
	return string(k) + ": " + render(v, indent, unit)
}

// Package jsonc edits a JSON document with comments (// and /* */, as
// Gemini CLI and VS Code read their settings) in place: what an edit does
// not touch keeps its bytes — other keys, their order, formatting and
// comments — and an item added is indented as its neighbours are. It is
// the one importer of github.com/tailscale/hujson, which parses the text
// into a tree that packs back byte for byte.
//
// It reads what JSON.parse reads once comments are stripped: a trailing
// comma, which hujson accepts, is an error here, as it would be to the
// agents that read these files.
package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// maxDepth caps how deeply values may nest in a document.
const maxDepth = 200

// errSyntax is returned for text that is not JSON with comments.
var errSyntax = errors.New("not valid JSON")

// Doc is a parsed document. Edits change it in place; [Doc.Bytes] is its
// text. A [Node] taken before an edit of the array or object it is in
// may be stale after it: take it again from [Doc.Root].
type Doc struct {
	root hujson.Value
	unit string // the document's indentation step
	// eol is true when Parse added a new line to end a last line comment
	// (hujson wants one; JSON.parse after comment stripping does not).
	eol bool
}

// Parse parses data, JSON with comments. Empty text is an error (the
// caller decides what an empty file means).
func Parse(data []byte) (*Doc, error) {
	if depth(data) > maxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", errSyntax, maxDepth)
	}
	v, err := hujson.Parse(data)
	eol := false
	if err != nil && len(data) > 0 && data[len(data)-1] != '\n' {
		if w, err2 := hujson.Parse(append(append([]byte(nil), data...), '\n')); err2 == nil {
			v, err, eol = w, nil, true
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSyntax, err)
	}
	for n := range v.All() {
		if last := lastItem(n); last != nil && last.AfterExtra != nil {
			return nil, fmt.Errorf("%w: a trailing comma", errSyntax)
		}
	}
	d := &Doc{root: v, eol: eol}
	d.unit = d.indentUnit()
	return d, nil
}

// Bytes is the document's text.
func (d *Doc) Bytes() []byte {
	b := d.root.Pack()
	if d.eol {
		b = bytes.TrimSuffix(b, []byte("\n"))
	}
	return b
}

// Root is the document's top-level value.
func (d *Doc) Root() Node { return Node{v: &d.root, d: d} }

// Node is one value of a document; the zero Node is a missing one.
type Node struct {
	v *hujson.Value
	d *Doc
}

// Kind is the value's kind: '{', '[', '"', '0' (a number), 't', 'f', 'n',
// or 0 for a missing value.
func (n Node) Kind() byte {
	if n.v == nil {
		return 0
	}
	return byte(n.v.Value.Kind())
}

// Get is the value of the last member named key of an object (JSON.parse
// keeps the last of duplicate keys): a missing Node when there is none or
// n is not an object.
func (n Node) Get(key string) Node {
	o, ok := n.object()
	if !ok {
		return Node{}
	}
	for i := len(o.Members) - 1; i >= 0; i-- {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return Node{v: &o.Members[i].Value, d: n.d}
		}
	}
	return Node{}
}

// Len is the number of an array's elements or an object's members (0
// for any other value).
func (n Node) Len() int {
	if o, ok := n.object(); ok {
		return len(o.Members)
	}
	if a, ok := n.array(); ok {
		return len(a.Elements)
	}
	return 0
}

// Index is an array's element i, or the value of an object's member i.
func (n Node) Index(i int) Node {
	if o, ok := n.object(); ok {
		return Node{v: &o.Members[i].Value, d: n.d}
	}
	if a, ok := n.array(); ok {
		return Node{v: &a.Elements[i], d: n.d}
	}
	return Node{}
}

// Str is a string's value, or a number's or literal's text ("" for a
// missing value, an object or an array).
func (n Node) Str() string {
	if n.v == nil {
		return ""
	}
	if lit, ok := n.v.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

// Append adds v, rendered as indented JSON (<, > and & as they are), as
// an array's last element.
func (n Node) Append(v any) error {
	a, ok := n.array()
	if !ok {
		return errors.New("jsonc: append to a value that is not an array")
	}
	val, err := n.item(v, len(a.Elements) == 0, lastItem(n.v))
	if err != nil {
		return err
	}
	a.AfterExtra = n.closing(len(a.Elements) == 0, a.AfterExtra)
	a.Elements = append(a.Elements, val)
	return nil
}

// Set adds key, with v rendered as indented JSON, as an object's last
// member (a member already named key stays: see [Node.Get]).
func (n Node) Set(key string, v any) error {
	o, ok := n.object()
	if !ok {
		return errors.New("jsonc: set in a value that is not an object")
	}
	var prev *hujson.Value
	if k := len(o.Members); k > 0 {
		prev = &o.Members[k-1].Name
	}
	val, err := n.item(v, len(o.Members) == 0, prev)
	if err != nil {
		return err
	}
	name := hujson.Value{BeforeExtra: val.BeforeExtra, Value: hujson.String(key)}
	val.BeforeExtra = hujson.Extra(" ")
	o.AfterExtra = n.closing(len(o.Members) == 0, o.AfterExtra)
	o.Members = append(o.Members, hujson.ObjectMember{Name: name, Value: val})
	return nil
}

// Remove cuts an array's element i, or an object's member i, with its
// comma: a line that held only the item goes with it (the comments above
// it stay); an only item leaves the array or object empty.
func (n Node) Remove(i int) {
	if o, ok := n.object(); ok {
		switch {
		case len(o.Members) == 1:
			o.Members, o.AfterExtra = nil, nil
		case i < len(o.Members)-1:
			keepComments(&o.Members[i+1].Name.BeforeExtra, o.Members[i].Name.BeforeExtra)
			o.Members = append(o.Members[:i], o.Members[i+1:]...)
		default:
			o.Members = o.Members[:i]
			o.Members[i-1].Value.AfterExtra = nil
		}
		return
	}
	if a, ok := n.array(); ok {
		switch {
		case len(a.Elements) == 1:
			a.Elements, a.AfterExtra = nil, nil
		case i < len(a.Elements)-1:
			keepComments(&a.Elements[i+1].BeforeExtra, a.Elements[i].BeforeExtra)
			a.Elements = append(a.Elements[:i], a.Elements[i+1:]...)
		default:
			a.Elements = a.Elements[:i]
			a.Elements[i-1].AfterExtra = nil
		}
	}
}

// Delete removes an object's last member named key (the one [Node.Get]
// reads), as [Node.Remove] does, and reports whether there was one.
func (n Node) Delete(key string) bool {
	o, ok := n.object()
	if !ok {
		return false
	}
	for i := len(o.Members) - 1; i >= 0; i-- {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			n.Remove(i)
			return true
		}
	}
	return false
}

// keepComments puts the comment lines of a removed item's leading extra
// before the next item's.
func keepComments(next *hujson.Extra, removed hujson.Extra) {
	cut := strings.LastIndexByte(string(removed), '\n')
	if cut <= 0 || !strings.Contains(string(removed[:cut]), "/") {
		return
	}
	*next = append(append(hujson.Extra(nil), removed[:cut]...), *next...)
}

func (n Node) object() (*hujson.Object, bool) {
	if n.v == nil {
		return nil, false
	}
	o, ok := n.v.Value.(*hujson.Object)
	return o, ok
}

func (n Node) array() (*hujson.Array, bool) {
	if n.v == nil {
		return nil, false
	}
	a, ok := n.v.Value.(*hujson.Array)
	return a, ok
}

// item renders v as a new item of n: on a line of its own, indented as
// the item before it (prev's leading extra says how), when that one is on
// a line of its own or n is empty; after ", " otherwise.
func (n Node) item(v any, empty bool, prev *hujson.Value) (hujson.Value, error) {
	var before, indent string
	switch {
	case empty:
		indent = n.lineIndent() + n.d.unit
		before = "\n" + indent
	case prev != nil && strings.Contains(string(prev.BeforeExtra), "\n"):
		b := string(prev.BeforeExtra)
		indent = b[strings.LastIndexByte(b, '\n')+1:]
		before = "\n" + indent
	default:
		before = " "
	}
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false) // a shell command's < > & stay readable
	enc.SetIndent(indent, n.d.unit)
	if err := enc.Encode(v); err != nil {
		return hujson.Value{}, err
	}
	val, err := hujson.Parse(bytes.TrimSuffix(text.Bytes(), []byte("\n")))
	if err != nil {
		return hujson.Value{}, err
	}
	val.BeforeExtra, val.AfterExtra = hujson.Extra(before), nil
	return val, nil
}

// closing is what goes before the closing bracket once an item is added:
// for an empty array or object holding only white space, a new line at
// the indentation of its own line.
func (n Node) closing(empty bool, inner hujson.Extra) hujson.Extra {
	if empty && strings.TrimSpace(string(inner)) == "" {
		return hujson.Extra("\n" + n.lineIndent())
	}
	return inner
}

// lineIndent is the white space that begins the line n starts on.
func (n Node) lineIndent() string {
	n.d.root.UpdateOffsets()
	data := n.d.root.Pack()
	pos := n.v.StartOffset
	start := strings.LastIndexByte(string(data[:pos]), '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

// indentUnit guesses the document's indentation step from its top-level
// object's first member; two spaces when it cannot tell.
func (d *Doc) indentUnit() string {
	o, ok := d.root.Value.(*hujson.Object)
	if !ok || len(o.Members) == 0 {
		return "  "
	}
	b := string(o.Members[0].Name.BeforeExtra)
	i := strings.LastIndexByte(b, '\n')
	if i < 0 {
		return "  "
	}
	inner := b[i+1:]
	outer := d.Root().lineIndent()
	if u, ok := strings.CutPrefix(inner, outer); ok && u != "" && strings.Trim(u, " \t") == "" {
		return u
	}
	return "  "
}

// lastItem is the value whose after-extra says whether an array or object
// ends in a comma: its last element, or its last member's value.
func lastItem(v *hujson.Value) *hujson.Value {
	switch c := v.Value.(type) {
	case *hujson.Array:
		if k := len(c.Elements); k > 0 {
			return &c.Elements[k-1]
		}
	case *hujson.Object:
		if k := len(c.Members); k > 0 {
			return &c.Members[k-1].Value
		}
	}
	return nil
}

// depth is how deeply data's arrays and objects nest, outside strings and
// comments (for text that parses; any answer for text that does not).
func depth(data []byte) int {
	d, max := 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				return d
			}
			i += end + 3
		case c == '[' || c == '{':
			if d++; d > max {
				max = d
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return max
}

// Standard is data as standard JSON: each comment replaced by spaces (the
// lines and offsets of the rest unchanged), as the agents read it.
func Standard(data []byte) ([]byte, error) {
	d, err := Parse(data)
	if err != nil {
		return nil, err
	}
	v := d.root.Clone()
	v.Standardize()
	b := v.Pack()
	if d.eol {
		b = bytes.TrimSuffix(b, []byte("\n"))
	}
	return b, nil
}

// HasComment reports whether data, JSON with comments, holds a comment
// (false for text that does not parse).
func HasComment(data []byte) bool {
	std, err := Standard(data)
	return err == nil && !bytes.Equal(std, data)
}

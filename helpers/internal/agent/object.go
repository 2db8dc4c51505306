package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Member is one key of a JSON object and its value, as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object with its members in their written order. The
// agents' hooks files that cairn rewrites whole, strict JSON re-indented
// (Codex's .codex/hooks.json, Cursor's .cursor/hooks.json), are edited as
// Objects, so that every key keeps its place and its value as written.
// (Gemini CLI's settings, JSON with comments kept byte for byte, go
// through package agent/jsonc; Claude Code's through sjson.)
type Object []Member

// ParseObject reads a JSON object, every member in its place (a key given
// twice too: see [Object.Unique]).
func ParseObject(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return out, nil
}

// Find returns the index of the last member named key (the one a JSON
// parser keeps), or -1.
func (o Object) Find(key string) int {
	for i := len(o) - 1; i >= 0; i-- {
		if o[i].Key == key {
			return i
		}
	}
	return -1
}

// Get returns the value of the last member named key.
func (o Object) Get(key string) (json.RawMessage, bool) {
	if i := o.Find(key); i >= 0 {
		return o[i].Value, true
	}
	return nil, false
}

// Set replaces the value of the last member named key in its place, or
// appends the member.
func (o Object) Set(key string, v json.RawMessage) Object {
	if i := o.Find(key); i >= 0 {
		o[i].Value = v
		return o
	}
	return append(o, Member{key, v})
}

// Delete removes every member named key.
func (o Object) Delete(key string) Object {
	var out Object
	for _, m := range o {
		if m.Key != key {
			out = append(out, m)
		}
	}
	return out
}

// Unique is o with one member per key: a key given twice keeps its first
// place and its last value, as a JSON parser reads it.
func (o Object) Unique() Object {
	var out Object
	at := map[string]int{}
	for _, m := range o {
		if i, ok := at[m.Key]; ok {
			out[i].Value = m.Value
			continue
		}
		at[m.Key] = len(out)
		out = append(out, m)
	}
	return out
}

// Marshal writes o as a compact JSON object; keys are written without
// escaping <, > and &, as the values were.
func (o Object) Marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(m.Key)   // a string always encodes
		b.Truncate(b.Len() - 1) // Encode's new line
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

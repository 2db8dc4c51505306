package knowledge

import (
	"bytes"
	"encoding/json"
	"sort"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
	"github.com/cairn-dev/cairn/helpers/internal/redact"
)

// Redaction happens here, where lines are built for the log, and nowhere
// else: [Store.Insert] redacts each entry and [Store.InsertLinesIf] and
// [Store.Import] each raw line before writing, so `cairn add`, every hook,
// import, retract and curation pass through it, whatever field a secret
// hides in (content, tags, bead, files, reasons, keys of other schemes).

// redactText redacts one string value and adds the kinds it replaced to
// kinds.
func redactText(s string, kinds map[string]bool) string {
	out, findings := redact.String(s)
	for _, f := range findings {
		kinds[f.Kind] = true
	}
	return out
}

// redactEntry redacts every text field of e. An entry keyed by cairn's own
// scheme from its unredacted content is keyed again from the redacted
// content, so the key cannot carry the secret either.
func redactEntry(e *Entry) {
	kinds := map[string]bool{}
	for _, k := range e.Redacted {
		kinds[k] = true
	}
	before := len(kinds)
	ownKey := e.Key == MakeKey(e.Type, e.Content)
	// Secrets go before white space and control characters are folded:
	// folding first could glue a token to its neighbour ("token<BEL>hf_...")
	// or leave an escape's tail on it ("[31mAKIA..."), and hide it.
	content := CleanContent(redactText(e.Content, kinds))
	EachText(e, func(f *string) {
		if f != &e.Content && f != &e.Key {
			*f = redactText(*f, kinds)
		}
	})
	if content != e.Content {
		e.Content = content
		if ownKey {
			e.Key = MakeKey(e.Type, e.Content)
		}
	}
	if !ownKey {
		e.Key = redactText(e.Key, kinds)
	}
	if len(kinds) > before {
		e.Redacted = sortedKinds(kinds)
	}
}

// CleanText is CleanContent for text typed into a line cairn builds by
// hand (a retraction's reason): secrets are removed before white space and
// control characters are folded, for the reason given in redactEntry. The
// line is redacted again where it is written; that changes nothing.
func CleanText(s string) string {
	return CleanContent(redactText(s, map[string]bool{}))
}

func sortedKinds(kinds map[string]bool) []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// redactLine returns a JSON object line with every string in it (at any
// depth; object keys excepted) redacted, and the kinds it replaced, which
// it also records in the line's "redacted" field. A line with nothing to
// redact is returned as it is, byte for byte.
func redactLine(line []byte) ([]byte, []string) {
	v := jsonfield.Parse(line)
	if !v.IsObject() {
		return line, nil
	}
	kinds := map[string]bool{}
	var buf bytes.Buffer
	buf.Grow(len(line) + 64)
	changed := writeRedacted(&buf, v, kinds)
	if !changed {
		return line, nil
	}
	list := sortedKinds(kinds)
	if !v.Get("redacted").Exists() {
		out := bytes.TrimSuffix(buf.Bytes(), []byte("}"))
		if !bytes.HasSuffix(out, []byte("{")) {
			out = append(out, ',')
		}
		out = append(out, `"redacted":`...)
		out = appendJSON(out, list)
		return append(out, '}'), list
	}
	return buf.Bytes(), list
}

// writeRedacted writes v with its strings redacted and reports whether
// anything changed.
func writeRedacted(buf *bytes.Buffer, v jsonfield.Value, kinds map[string]bool) bool {
	changed := false
	switch {
	case v.IsObject():
		buf.WriteByte('{')
		first := true
		v.ForEach(func(k, val jsonfield.Value) bool {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			buf.WriteString(k.Raw)
			buf.WriteByte(':')
			if writeRedacted(buf, val, kinds) {
				changed = true
			}
			return true
		})
		buf.WriteByte('}')
	case v.IsArray():
		buf.WriteByte('[')
		first := true
		v.ForEach(func(_, val jsonfield.Value) bool {
			if !first {
				buf.WriteByte(',')
			}
			first = false
			if writeRedacted(buf, val, kinds) {
				changed = true
			}
			return true
		})
		buf.WriteByte(']')
	case v.Type == jsonfield.String:
		out := redactText(v.Str, kinds)
		if out == v.Str {
			buf.WriteString(v.Raw)
			return false
		}
		buf.Write(appendJSON(nil, out))
		return true
	default:
		buf.WriteString(v.Raw)
	}
	return changed
}

// appendJSON appends v encoded as JSON without HTML escaping.
func appendJSON(dst []byte, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return append(dst, "null"...)
	}
	return append(dst, bytes.TrimRight(b.Bytes(), "\n")...)
}

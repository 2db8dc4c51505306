package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// Everything a command prints may quote the shared log — contents, keys,
// authors, a path or a line an error names — and the log comes from
// whoever pushed. terminalWriter stands between every command and the
// terminal: each line passes through untrusted.ForTerminal, so a control
// character or an escape sequence is shown (as \x1b, \u202e, ...) and
// never acted on. Tabs and line breaks of cairn's own layout are kept.
// JSON goes around it (see writeJSON), every string in it cleaned the
// same way.
type terminalWriter struct {
	w io.Writer
}

func (t *terminalWriter) Write(p []byte) (int, error) {
	s := string(p)
	if safeLayout(s) {
		return t.w.Write(p)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		for j, cell := range strings.Split(line, "\t") {
			if j > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(untrusted.ForTerminal(cell))
		}
	}
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// safeLayout reports whether s is printable ASCII with tabs and newlines
// only: nothing to clean (the common case).
func safeLayout(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// forTerminal wraps w unless it already is a terminalWriter.
func forTerminal(w io.Writer) io.Writer {
	if _, ok := w.(*terminalWriter); ok || w == nil {
		return w
	}
	return &terminalWriter{w: w}
}

// rawWriter is the writer below a terminalWriter, for output that is
// already safe (JSON whose values were cleaned).
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*terminalWriter); ok {
		return t.w
	}
	return w
}

// clean makes one untrusted value safe for JSON output read by scripts,
// agents and terminals alike.
func clean(s string) string { return untrusted.ForTerminal(s) }

// cleanEntry is e with every text cleaned, for JSON output: every string
// field, found by knowledge.EachText, so a new field is cleaned too.
func cleanEntry(e knowledge.Entry) knowledge.Entry {
	e = e.Clone()
	knowledge.EachText(&e, func(s *string) { *s = clean(*s) })
	return e
}

// writeJSON prints v as indented JSON whose every string (keys included)
// passed untrusted.ForTerminal, whatever the command put in it: a file
// name with U+202E in a wiki lint, say. Values cleaned where they are
// built are left as they are (ForTerminal changes nothing twice).
func writeJSON(w io.Writer, v any) error {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	clean, err := terminalJSON(raw.Bytes())
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, clean, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = rawWriter(w).Write(out.Bytes())
	return err
}

// terminalJSON re-encodes the JSON data, compact, with every string passed
// through untrusted.ForTerminal; numbers are kept as written.
func terminalJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	type level struct {
		object bool
		n      int // tokens so far at this level
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			out.WriteByte(byte(d))
			continue
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			switch {
			case top.object && top.n%2 == 1:
				out.WriteByte(':')
			case top.n > 0:
				out.WriteByte(',')
			}
			top.n++
		}
		switch t := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(t))
			stack = append(stack, level{object: t == '{'})
		case string:
			if err := enc.Encode(untrusted.ForTerminal(t)); err != nil {
				return nil, err
			}
			out.Truncate(out.Len() - 1) // the encoder's newline
		case json.Number:
			out.WriteString(t.String())
		case bool:
			out.WriteString(strconv.FormatBool(t))
		case nil:
			out.WriteString("null")
		}
	}
}

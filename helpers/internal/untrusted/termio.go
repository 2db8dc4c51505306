package untrusted

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
)

// TerminalWriter passes every line written to W through ForTerminal, cell
// by cell between tabs: a control character or an escape sequence is
// shown (as \x1b, \u202e, ...) and never acted on, and the tabs and line
// breaks of the writer's own layout are kept.
type TerminalWriter struct {
	W io.Writer
}

// Write writes p to W, each cell of each line through ForTerminal.
func (t *TerminalWriter) Write(p []byte) (int, error) {
	s := string(p)
	if safeLayout(s) {
		return t.W.Write(p)
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
			b.WriteString(ForTerminal(cell))
		}
	}
	if _, err := io.WriteString(t.W, b.String()); err != nil {
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

// TerminalJSON re-encodes the JSON data, compact, with every string passed
// through untrusted.ForTerminal; numbers are kept as written.
func TerminalJSON(data []byte) ([]byte, error) {
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
			if err := enc.Encode(ForTerminal(t)); err != nil {
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

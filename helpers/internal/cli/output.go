package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// Everything a command prints may quote the shared log — contents, keys,
// authors, a path or a line an error names — and the log comes from
// whoever pushed. An untrusted.TerminalWriter stands between every
// command and the terminal: each line passes through
// untrusted.ForTerminal, so a control character or an escape sequence is
// shown (as \x1b, \u202e, ...) and never acted on. Tabs and line breaks
// of cairn's own layout are kept. JSON goes around it (see writeJSON),
// every string in it cleaned the same way (untrusted.TerminalJSON).

// forTerminal wraps w unless it already is a TerminalWriter.
func forTerminal(w io.Writer) io.Writer {
	if _, ok := w.(*untrusted.TerminalWriter); ok || w == nil {
		return w
	}
	return &untrusted.TerminalWriter{W: w}
}

// rawWriter is the writer below a TerminalWriter, for output that is
// already safe (JSON whose values were cleaned).
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*untrusted.TerminalWriter); ok {
		return t.W
	}
	return w
}

// clean makes one untrusted value safe for JSON output read by scripts,
// agents and terminals alike.
func clean(s string) string { return untrusted.ForTerminal(s) }

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
	clean, err := untrusted.TerminalJSON(raw.Bytes())
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

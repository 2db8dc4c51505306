package cli

import (
	"io"
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
// JSON goes around it (see writeJSON), with its values cleaned where they
// are built.
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

// cleanAll cleans every value of a list (nil stays nil).
func cleanAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = clean(s)
	}
	return out
}

// cleanKeys cleans the keys of a count map (authors, months) for output.
func cleanKeys(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[clean(k)] += v
	}
	return out
}

// cleanEntry is e with every text cleaned, for JSON output.
func cleanEntry(e knowledge.Entry) knowledge.Entry {
	for _, f := range []*string{&e.Key, &e.Type, &e.Content, &e.Source, &e.Bead, &e.Author, &e.Branch,
		&e.Commit, &e.Session, &e.Status, &e.Supersedes, &e.SupersededBy, &e.ReviewReason} {
		*f = clean(*f)
	}
	e.Tags, e.Files, e.MergedFrom, e.Redacted = cleanAll(e.Tags), cleanAll(e.Files), cleanAll(e.MergedFrom), cleanAll(e.Redacted)
	return e
}

package untrusted_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// The terminal writer keeps cairn's own layout (tabs, line breaks) and
// shows every other control character; JSON keeps its numbers and
// cleans every string, keys included.
func TestTerminalWriterAndJSON(t *testing.T) {
	var b strings.Builder
	w := &untrusted.TerminalWriter{W: &b}
	in := "key\tred \x1b[31mtext\u202e\nnext line\n"
	if n, err := w.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if want := "key\tred \\x1b[31mtext\\u202e\nnext line\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	out, err := untrusted.TerminalJSON([]byte(`{"a\u001b":["x\u202ey",1.50,true,null],"n":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a\\x1b":["x\\u202ey",1.50,true,null],"n":{}}`; string(out) != want {
		t.Errorf("TerminalJSON = %s, want %s", out, want)
	}
}

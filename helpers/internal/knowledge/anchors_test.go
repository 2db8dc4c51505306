package knowledge

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
)

// An insertion brings a map that was current with the log to the new
// log, with the new entries' anchors (cleaned) first on their lines; a
// map that was not current is left as it was.
func TestInsertAdvancesAnchorMap(t *testing.T) {
	s := Open(t.TempDir())
	old := Entry{Key: MakeKey("learned", "old note"), Type: "learned", Content: "old note", TS: 1, Files: []string{"a.go"}}
	if _, err := s.Insert([]Entry{old}); err != nil {
		t.Fatal(err)
	}
	id, err := anchor.Identity(s.Root())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Root().MkdirAll(CacheDir); err != nil {
		t.Fatal(err)
	}
	m := anchor.Map{Sources: id, Files: map[string][]string{"a.go": {old.Key}}, Commands: map[string][]string{}}
	if err := s.Root().ReplaceFile(anchor.File, anchor.Encode(m), 0o644); err != nil {
		t.Fatal(err)
	}
	note := Entry{Key: MakeKey("learned", "new note"), Type: "learned", Content: "new note", TS: 2, Files: []string{"./a.go"}}
	must := Entry{Key: MakeKey("must-check", "never run `terraform apply` by hand"), Type: "must-check", Content: "never run `terraform apply` by hand", TS: 2}
	plain := Entry{Key: MakeKey("fact", "plain"), Type: "fact", Content: "plain", TS: 2}
	if _, err := s.Insert([]Entry{note, must, plain}); err != nil {
		t.Fatal(err)
	}
	read := func() anchor.Map {
		data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		m, err := anchor.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	got := read()
	now, _ := anchor.Identity(s.Root())
	if got.Sources != now || !slices.Equal(got.Files["a.go"], []string{note.Key, old.Key}) || !slices.Equal(got.Commands["terraform apply"], []string{must.Key}) {
		t.Errorf("map after the insertion: %+v (log %q)", got, now)
	}

	// Not current: left alone.
	if err := s.Root().ReplaceFile(anchor.File, anchor.Encode(anchor.Map{Sources: "elsewhere"}), 0o644); err != nil {
		t.Fatal(err)
	}
	more := Entry{Key: MakeKey("learned", "more"), Type: "learned", Content: "more", TS: 3, Files: []string{"b.go"}}
	if _, err := s.Insert([]Entry{more}); err != nil {
		t.Fatal(err)
	}
	if got := read(); got.Sources != "elsewhere" || len(got.Files) != 0 {
		t.Errorf("a stale map was changed: %+v", got)
	}
}

// The map's head alone says whether it is of the log: the whole sources
// line must be the log's identity.
func TestAnchorsOfReadsTheHead(t *testing.T) {
	s := Open(t.TempDir())
	if err := s.Root().MkdirAll(CacheDir); err != nil {
		t.Fatal(err)
	}
	id := "30860376:1796620674:1796620674:1234"
	full := string(anchor.Encode(anchor.Map{Sources: id, Files: map[string][]string{"a.go": {"k"}}}))
	for _, c := range []struct {
		name, data string
		want       bool
	}{
		{"current", full, true},
		{"another log", string(anchor.Encode(anchor.Map{Sources: "1:2:3:4"})), false},
		{"the identity and more", strings.Replace(full, id, id+"5", 1), false},
		{"cut in its sources line", full[:strings.Index(full, id)+len(id)-1], false},
		{"cut before the line ends", full[:strings.Index(full, id)+len(id)], false},
		{"not a map", "garbage\n", false},
	} {
		if err := s.Root().ReplaceFile(anchor.File, []byte(c.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := s.anchorsOf(id); got != c.want {
			t.Errorf("%s: anchorsOf = %v, want %v", c.name, got, c.want)
		}
	}
	if err := s.Root().Remove(anchor.File); err != nil {
		t.Fatal(err)
	}
	if s.anchorsOf(id) {
		t.Error("a missing map is of the log")
	}
}

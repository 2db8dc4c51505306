package knowledge

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWithoutLines(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		drop       []int
		want       string
	}{
		{"Middle", "a\nb\nc\n", []int{2}, "a\nc\n"},
		{"CRLFKept", "a\r\nb\r\nc\r\n", []int{1}, "b\r\nc\r\n"},
		{"LastWithoutNewline", "a\nb\nc", []int{3}, "a\nb\n"},
		{"BOMKept", "\xef\xbb\xbfa\nb\n", []int{1}, "\xef\xbb\xbfb\n"},
		{"Nothing", "a\nb\n", nil, "a\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drop := map[int]bool{}
			for _, n := range tc.drop {
				drop[n] = true
			}
			if got := string(withoutLines([]byte(tc.data), drop)); got != tc.want {
				t.Errorf("withoutLines(%q, %v) = %q, want %q", tc.data, tc.drop, got, tc.want)
			}
		})
	}
}

func TestRewrite(t *testing.T) {
	a := `{"key":"fact-a-000001","type":"fact","content":"A","ts":1}`
	b := `{"key":"fact-b-000002","type":"fact","content":"B","ts":1}`
	b2 := `{"key":"fact-b-000002","type":"fact","content":"B","ts":2,"status":"needs_review","review_reason":"x"}`
	c := `{"key":"fact-c-000003","type":"fact","content":"C","ts":1}`
	setup := func(t *testing.T, log string) *Store {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, DirName), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, DirName, LogName), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		return Open(root)
	}
	read := func(t *testing.T, s *Store) string {
		data, err := s.ReadLog()
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	t.Run("RemoveKeepsTheOthersByteForByte", func(t *testing.T) {
		s := setup(t, a+"\r\n"+b+"\n"+b2+"\n"+c)
		var seen int
		_, err := s.Rewrite(Rewrite{Key: "fact-b-000002", Remove: true, Check: func(lines []Record) error {
			seen = len(lines)
			return nil
		}})
		if err != nil || seen != 2 {
			t.Fatalf("Rewrite = %v, check saw %d lines", err, seen)
		}
		if got := read(t, s); got != a+"\r\n"+c {
			t.Errorf("log = %q", got)
		}
	})
	t.Run("CheckStopsIt", func(t *testing.T) {
		log := a + "\n" + b + "\n"
		s := setup(t, log)
		stop := errors.New("stop")
		if _, err := s.Rewrite(Rewrite{Key: "fact-b-000002", Remove: true, Check: func([]Record) error { return stop }}); err != stop {
			t.Fatalf("Rewrite = %v", err)
		}
		if got := read(t, s); got != log {
			t.Errorf("log changed: %q", got)
		}
	})
	t.Run("UnknownKey", func(t *testing.T) {
		s := setup(t, a+"\n")
		if _, err := s.Rewrite(Rewrite{Key: "fact-x-000009", Remove: true}); !errors.Is(err, ErrNoLines) {
			t.Fatalf("Rewrite = %v, want ErrNoLines", err)
		}
	})
	t.Run("GluedLineRefused", func(t *testing.T) {
		log := a + b + "\n" + c + "\n"
		s := setup(t, log)
		if _, err := s.Rewrite(Rewrite{Key: "fact-b-000002", Remove: true}); err == nil || !strings.Contains(err.Error(), "glued") {
			t.Fatalf("Rewrite = %v", err)
		}
		if got := read(t, s); got != log {
			t.Errorf("log changed: %q", got)
		}
	})
	t.Run("ReplaceRedactsAndRekeys", func(t *testing.T) {
		s := setup(t, a+"\n"+b+"\n")
		secret := "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"
		e := Entry{Type: "fact", Content: secret, TS: 5}
		e.Key = MakeKey(e.Type, e.Content)
		out, err := s.Rewrite(Rewrite{Key: "fact-b-000002", Remove: true, Add: []Entry{e},
			Lines: func(added []Entry) ([][]byte, error) {
				return [][]byte{[]byte(`{"key":"fact-a-000001","type":"fact","content":"A","ts":6,"review_reason":"see ` + added[0].Key + ` and ghp_abcdefghijklmnopqrstuvwxyz0123456789"}`)}, nil
			}})
		if err != nil || len(out) != 1 {
			t.Fatalf("Rewrite = %v, %v", out, err)
		}
		got := read(t, s)
		if strings.Contains(got, "ghp_") || strings.Contains(got, "fact-b-000002") || out[0].Key == e.Key || !strings.Contains(got, out[0].Key) {
			t.Errorf("log = %s (added %+v)", got, out[0])
		}
	})
	t.Run("ExistingEntryRefused", func(t *testing.T) {
		real := `{"key":"` + MakeKey("fact", "A") + `","type":"fact","content":"A","ts":1}`
		log := real + "\n" + b + "\n"
		s := setup(t, log)
		e := Entry{Key: MakeKey("fact", "a"), Type: "fact", Content: "a", TS: 5}
		if _, err := s.Rewrite(Rewrite{Key: "fact-b-000002", Remove: true, Add: []Entry{e}}); !errors.Is(err, ErrExists) {
			t.Fatalf("Rewrite = %v, want ErrExists", err)
		}
		if got := read(t, s); got != log {
			t.Errorf("log changed: %q", got)
		}
	})
}

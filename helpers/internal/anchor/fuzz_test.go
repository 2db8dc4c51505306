package anchor

import (
	"bytes"
	"reflect"
	"testing"
)

// Parse and Lookup never panic, a lookup read by offset in small blocks
// (what the hook gate's LookupAt does) finds what Lookup finds in the
// whole data, and what Parse accepts encodes back to a map Parse reads
// the same.
func FuzzParse(f *testing.F) {
	f.Add(Encode(sample()), "db/migrations/x.sql", "terraform apply")
	f.Add([]byte(magic+"\nsrc \nf a\tk\nc b c\tk\n"), "a", "b c")
	f.Add([]byte("junk"), "", "")
	f.Add(synthMap(200), "src/pkg3/sub3/file3.go", "")
	f.Fuzz(func(t *testing.T, data []byte, p, command string) {
		want := Lookup(data, []string{p}, command)
		got, err := lookup(&mapReader{r: bytes.NewReader(data), size: int64(len(data)), block: 7}, []string{p}, command)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("read by offset: %+v, %v; whole: %+v", got, err, want)
		}
		m, err := Parse(data)
		if err != nil {
			return
		}
		enc := Encode(m)
		again, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		// On an encoded (sorted) map, the search finds what the parse
		// holds.
		for f, keys := range again.Files {
			if c, ok := Clean(f); !ok || c != f {
				continue // not a path Candidates keeps as it is
			}
			hits := Lookup(enc, []string{f}, "")
			if len(hits) == 0 || hits[0].Anchor != f || len(hits[0].Keys) != len(keys) {
				t.Fatalf("Lookup(%q) = %+v, parsed %v", f, hits, keys)
			}
		}
		if len(again.Files) > len(m.Files) || len(again.Commands) > len(m.Commands) {
			t.Fatalf("re-parse grew: %+v vs %+v", again, m)
		}
	})
}

// WritePaths and ReadOnly never panic, stay within their cap, and a
// command that writes a file is never read-only.
func FuzzWritePaths(f *testing.F) {
	for _, s := range []string{"sed -i s/a/b/ x.go", "echo x > a.go", "git status", "go test ./...", "bash -c 'rm -rf $(cat list)' | tee o", "cp a b c", "dd of=", ">&", "git checkout"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		w := WritePaths(command)
		if len(w) > maxCommandPaths {
			t.Fatalf("%d paths", len(w))
		}
		if len(w) > 0 && ReadOnly(command) {
			t.Fatalf("%q writes %q yet is read-only", command, w)
		}
	})
}

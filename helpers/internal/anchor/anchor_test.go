package anchor

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

func sample() Map {
	return Map{
		Sources: FormatIDs(fsx.FileID{Size: 10, Mtime: 2, Ctime: 3, Ino: 4}, fsx.FileID{}),
		Files: map[string][]string{
			"payments/client.go": {"learned-retry-1", "gotcha-ctx-2"},
			"db/migrations/":     {"must-check-dry-run-3"},
			"db":                 {"fact-db-4"},
			"bad\tpath":          {"x"},
		},
		Commands: map[string][]string{"terraform apply": {"must-check-plan-5"}},
	}
}

// A map survives Encode and Parse, minus what it cannot hold.
func TestEncodeParse(t *testing.T) {
	m := sample()
	got, err := Parse(Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	delete(m.Files, "bad\tpath")
	m.Files["db/migrations"] = m.Files["db/migrations/"]
	delete(m.Files, "db/migrations/")
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
	if src, ok := SourcesOf(Encode(m)); !ok || src != m.Sources {
		t.Errorf("SourcesOf = %q, %v", src, ok)
	}
	if _, ok := SourcesOf([]byte("junk")); ok {
		t.Error("SourcesOf(junk) ok")
	}
}

func TestLookup(t *testing.T) {
	data := Encode(sample())
	for _, tc := range []struct {
		name    string
		paths   []string
		command string
		want    []string // anchors, in order
	}{
		{"file", []string{"payments/client.go"}, "", []string{"payments/client.go"}},
		{"under a directory, most specific first", []string{"db/migrations/0001.sql"}, "", []string{"db/migrations", "db"}},
		{"the directory itself", []string{"db/migrations/"}, "", []string{"db/migrations", "db"}},
		{"unanchored", []string{"README.md", "payments/other.go"}, "", nil},
		{"a prefix of a name is not its directory", []string{"db2/x"}, "", nil},
		{"command", nil, "terraform  apply -auto-approve", []string{"terraform apply"}},
		{"command after a separator", nil, "cd infra && terraform apply", []string{"terraform apply"}},
		{"not the command", nil, "terraform plan", nil},
		{"a longer word is not the prefix", nil, "terraform applyx", nil},
		{"quoted text is not the command", nil, "echo terraform apply", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, h := range Lookup(data, tc.paths, tc.command) {
				got = append(got, h.Anchor)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Lookup(%v, %q) = %v, want %v", tc.paths, tc.command, got, tc.want)
			}
		})
	}
}

func TestRel(t *testing.T) {
	for _, tc := range []struct {
		root, cwd, p, want string
		ok                 bool
	}{
		{"/r", "/r", "/r/a/b.go", "a/b.go", true},
		{"/r", "/r/a", "b.go", "a/b.go", true},
		{"/r", "", "a/../b.go", "b.go", true},
		{"/r", "/r", "/etc/passwd", "", false},
		{"/r", "/r", "../x", "", false},
		{"/r", "/r", "/r", "", false},
		{"/r", "/r", "/rx/a", "", false},
		{"/r", "/r", "", "", false},
	} {
		got, ok := Rel(tc.root, tc.cwd, tc.p)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Rel(%q, %q, %q) = %q, %v; want %q, %v", tc.root, tc.cwd, tc.p, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCommand(t *testing.T) {
	for content, want := range map[string]string{
		"never run `terraform apply` without `terraform plan -out x`":     "terraform apply",
		"edit `db/migrations/` only with `--dry-run`, then `make  check`": "make check",
		"nothing quoted":               "",
		"`make` alone is not a prefix": "",
	} {
		if got, ok := Command(content); got != want || ok != (want != "") {
			t.Errorf("Command(%q) = %q, %v; want %q", content, got, ok, want)
		}
	}
}

func TestLastTouched(t *testing.T) {
	got := LastTouched([]byte("a\nb\na\nc\nd\ne\nf\n"))
	want := []string{"f", "e", "d", "c", "a"}
	if !slices.Equal(got, want) {
		t.Errorf("LastTouched = %q, want %q", got, want)
	}
}

func TestCommandPaths(t *testing.T) {
	got := CommandPaths(`cd infra && sed -i 's/a/b/' db/migrations/0001.sql README.md -f x.y --out=z/w $(cat payments/client.go) https://x.io/a`)
	want := []string{"payments/client.go", "infra", "s/a/b/", "db/migrations/0001.sql", "README.md", "x.y"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("CommandPaths = %q, want %q", got, want)
	}
	// A redirect names the file it writes: the hook must see it.
	if got := CommandPaths(`printf 'x' > client/retry.go 2>&1`); !slices.Equal(got, []string{"x", "client/retry.go"}) {
		t.Errorf("CommandPaths of a redirect = %q", got)
	}
}

// The turn's record of edited files: appended, read most recent first,
// forgotten.
func TestTouched(t *testing.T) {
	root := fsx.NewRoot(t.TempDir())
	if err := NoteTouched(root, "s1", "a.go"); err != nil {
		t.Fatal(err)
	}
	if err := NoteTouched(root, "s1", "b.go"); err != nil {
		t.Fatal(err)
	}
	if got := ReadTouched(root, "s1"); !slices.Equal(got, []string{"b.go", "a.go"}) {
		t.Errorf("ReadTouched = %q", got)
	}
	if got := ReadTouched(root, "s2"); got != nil {
		t.Errorf("another session's record: %q", got)
	}
	if err := ForgetTouched(root, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := ReadTouched(root, "s1"); got != nil {
		t.Errorf("after ForgetTouched: %q", got)
	}
}

// Lookup's binary search agrees with the parsed map on a map large enough
// to search: every anchored path is found with its keys, a path under an
// anchored directory finds it, absent paths (between, before and after
// the anchored ones) find nothing.
func TestLookupLargeMap(t *testing.T) {
	data := synthMap(3000)
	m, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for f, keys := range m.Files {
		hits := Lookup(data, []string{f}, "")
		if len(hits) != 1 || hits[0].Anchor != f || !slices.Equal(hits[0].Keys, keys) {
			t.Fatalf("Lookup(%q) = %+v, want %v", f, hits, keys)
		}
		if hits := Lookup(data, []string{f + "x"}, ""); len(hits) != 0 {
			t.Fatalf("Lookup(%q) = %+v", f+"x", hits)
		}
	}
	for _, p := range []string{"a", "src", "src/pkg1", "zzz/y.go", "src/pkg1/sub1/file0.go"} {
		if hits := Lookup(data, []string{p}, ""); len(hits) != 0 {
			t.Errorf("Lookup(%q) = %+v", p, hits)
		}
	}
	m.Files["src/pkg5"] = []string{"fact-dir"}
	data = Encode(m)
	hits := Lookup(data, []string{"src/pkg5/sub5/file5.go"}, "terraform apply")
	var anchors []string
	for _, h := range hits {
		anchors = append(anchors, h.Anchor)
	}
	if !slices.Equal(anchors, []string{"src/pkg5/sub5/file5.go", "src/pkg5", "terraform apply"}) {
		t.Errorf("hits %v", anchors)
	}
}

// shortReader is a map that shrank under the reader: it holds fewer bytes
// than the size the lookup was given, and counts its reads.
type shortReader struct {
	data  []byte
	reads int
}

func (r *shortReader) ReadAt(p []byte, off int64) (int, error) {
	r.reads++
	return bytes.NewReader(r.data).ReadAt(p, off)
}

// LookupAt reads a large map by offset: it finds what Lookup finds in a
// few block reads, and a map shorter than its size (truncated under the
// reader) is an error, not hits and not a fault.
func TestLookupAt(t *testing.T) {
	data := synthMap(10_000)
	anchored := "src/pkg5/sub5/file5.go"
	for _, p := range []string{anchored, "src/none/nothing.go"} {
		r := &shortReader{data: data}
		hits, err := LookupAt(r, int64(len(data)), []string{p}, "terraform apply -auto-approve")
		if want := Lookup(data, []string{p}, "terraform apply -auto-approve"); err != nil || !reflect.DeepEqual(hits, want) {
			t.Errorf("LookupAt(%q) = %+v, %v; Lookup finds %+v", p, hits, err, want)
		}
		if blocks := (len(data) + blockSize - 1) / blockSize; r.reads > blocks/3 {
			t.Errorf("LookupAt(%q) read %d of the map's %d blocks", p, r.reads, blocks)
		}
	}
	r := &shortReader{data: data[:len(data)/2]}
	if hits, err := LookupAt(r, int64(len(data)), []string{"src/pkg96/sub12/file9999.go"}, ""); err == nil {
		t.Errorf("a map shorter than its size: %+v, no error", hits)
	}
}

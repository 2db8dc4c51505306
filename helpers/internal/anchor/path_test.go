package anchor

import "testing"

func TestClean(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"src/a.go", "src/a.go", true},
		{"./src/a.go", "src/a.go", true},
		{"src//a.go", "src/a.go", true},
		{"db/migrations/", "db/migrations", true},
		{" ./db/migrations/ ", "db/migrations", true},
		{"a/../b", "b", true},
		{"dir with # and spaces/x.go", "dir with # and spaces/x.go", true},
		{"", "", false},
		{".", "", false},
		{"./", "", false},
		{"..", "", false},
		{"../x", "", false},
		{"a/../../x", "", false},
		{"/etc/passwd", "", false},
		{`a\b`, "", false},
		{"a\nb", "", false},
	} {
		got, ok := Clean(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Clean(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"src/a.go", "./a//b/", "../x", "/abs", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		got, ok := Clean(p)
		if !ok {
			return
		}
		again, ok2 := Clean(got)
		if !ok2 || again != got {
			t.Fatalf("Clean is not idempotent: %q -> %q -> %q (%v)", p, got, again, ok2)
		}
	})
}

// An anchor is compared by Clean whatever its spelling: "./src/a.go" is
// "src/a.go", "db/migrations/" covers the files under it.
func TestCoversCleansTheAnchor(t *testing.T) {
	for _, c := range []struct {
		anchor, path string
		want         bool
	}{
		{"./src/a.go", "src/a.go", true},
		{"src//a.go", "src/a.go", true},
		{"db/migrations/", "db/migrations/0001.sql", true},
		{"./db/migrations", "db/migrations/sub/0002.sql", true},
		{"db/migrations", "db/migrationsx/0001.sql", false},
		{"../src/a.go", "src/a.go", false},
		{"/src/a.go", "src/a.go", false},
		{"", "src/a.go", false},
	} {
		if got := Covers(c.anchor, c.path); got != c.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", c.anchor, c.path, got, c.want)
		}
	}
}

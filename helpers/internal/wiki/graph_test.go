package wiki

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestGraph(t *testing.T) {
	w := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(w, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	front := "---\ntitle: T\nsources: []\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n"
	write("concepts/alpha.md", front+"See [[beta]] and [[concepts/Beta|b]] and [[missing]] and [[#top]].\n")
	write("concepts/beta.md", front+"Back to [[alpha]].\n")
	write("connections/gamma.md", front+"[[alpha]] [[beta]]\n")
	g, err := ReadGraph(w)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, p := range g.Pages() {
		paths = append(paths, p.Path)
	}
	if want := []string{"concepts/alpha", "concepts/beta", "connections/gamma"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("Pages = %v, want %v", paths, want)
	}
	for _, tc := range []struct {
		target, want string
		ok           bool
	}{
		{"beta", "concepts/beta", true},
		{"concepts/Beta", "concepts/beta", true},
		{"concepts/beta.md", "concepts/beta", true},
		{"missing", "", false},
	} {
		got, ok := g.ResolveTarget(tc.target)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ResolveTarget(%q) = %q, %v; want %q, %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
	if got, want := g.Backlinks("concepts/alpha"), []string{"concepts/beta", "connections/gamma"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Backlinks(alpha) = %v, want %v", got, want)
	}
	if got, want := g.Backlinks("concepts/beta"), []string{"concepts/alpha", "connections/gamma"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Backlinks(beta) = %v, want %v", got, want)
	}
	if _, ok := g.Page("concepts/nope"); ok {
		t.Error("Page of a missing article found")
	}
}

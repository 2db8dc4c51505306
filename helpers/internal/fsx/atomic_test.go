package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempsIn lists the temporary files left in dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if IsTemp(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// A file written through CreateTemp replaces its target only at Install:
// until then the target holds its old content whole, the temporary file
// holds the new content whole, and afterwards only the target is left,
// with the new content and the mode asked for.
func TestTempInstall(t *testing.T) {
	dir := t.TempDir()
	r := NewRoot(dir)
	must(t, os.MkdirAll(filepath.Join(dir, "cache"), 0o755))
	target := filepath.Join(dir, "cache", "active.jsonl")
	must(t, os.WriteFile(target, []byte("old\n"), 0o644))

	tmp, err := r.CreateTemp("cache/active.jsonl", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Abort()
	if !strings.HasPrefix(tmp.Name(), "cache/"+TempPrefix("active.jsonl")) {
		t.Errorf("temporary name %q is not beside its target with the marker", tmp.Name())
	}
	if _, err := tmp.File.WriteString("new content\n"); err != nil {
		t.Fatal(err)
	}
	var atRename, targetThen string
	beforeRename = func(p string) {
		b, _ := os.ReadFile(p)
		atRename = string(b)
		b, _ = os.ReadFile(target)
		targetThen = string(b)
	}
	defer func() { beforeRename = nil }()
	if err := tmp.Install(); err != nil {
		t.Fatal(err)
	}
	if atRename != "new content\n" || targetThen != "old\n" {
		t.Errorf("before the rename: temp %q, target %q; want the whole new content beside the old", atRename, targetThen)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "new content\n" {
		t.Errorf("after Install the target reads %q, %v", b, err)
	}
	if left := tempsIn(t, filepath.Join(dir, "cache")); len(left) != 0 {
		t.Errorf("Install left %v", left)
	}
	if err := tmp.Install(); err == nil {
		t.Error("a second Install succeeded")
	}
	tmp.Abort() // after Install: nothing to do, nothing removed
	if _, err := os.Stat(target); err != nil {
		t.Errorf("Abort after Install touched the target: %v", err)
	}
}

// Root.Install puts a file another writer built at a path (a database)
// in place, and creates the target when there was none.
func TestRootInstallBuiltFile(t *testing.T) {
	dir := t.TempDir()
	r := NewRoot(dir)
	name := "index.db"
	tmp := TempFor(name)
	must(t, os.WriteFile(filepath.Join(dir, tmp), []byte("built"), 0o644))
	if err := r.Install(tmp, name); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "built" {
		t.Errorf("target reads %q, %v", b, err)
	}
	if left := tempsIn(t, dir); len(left) != 0 {
		t.Errorf("Install left %v", left)
	}
}

// A failed install leaves no temporary file and the target as it was:
// a directory at the target is refused, not replaced or merged into; an
// aborted write is removed; a temporary file that is missing, or in
// another directory than its target, is an error.
func TestInstallFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	r := NewRoot(dir)
	must(t, os.MkdirAll(filepath.Join(dir, "index.db"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "index.db", "keep"), []byte("k"), 0o644))

	tmp, err := r.CreateTemp("index.db", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	tmp.File.WriteString("x")
	err = tmp.Install()
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Install over a directory = %v; want it refused as a directory", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "index.db", "keep")); err != nil || string(b) != "k" {
		t.Errorf("the directory at the target changed: %q, %v", b, err)
	}
	if left := tempsIn(t, dir); len(left) != 0 {
		t.Errorf("a refused Install left %v", left)
	}

	aborted, err := r.CreateTemp("audit.jsonl", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	aborted.File.WriteString("half")
	aborted.Abort()
	if left := tempsIn(t, dir); len(left) != 0 {
		t.Errorf("Abort left %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "audit.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Abort created the target: %v", err)
	}

	if err := r.Install(TempFor("gone"), "gone"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Install of a missing file = %v; want not exist", err)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	other := TempFor("x")
	must(t, os.WriteFile(filepath.Join(dir, other), nil, 0o644))
	if err := r.Install(other, "sub/x"); err == nil {
		t.Error("Install across directories succeeded")
	}
	if left := tempsIn(t, dir); len(left) != 0 {
		t.Errorf("a failed Install left %v", left)
	}
}

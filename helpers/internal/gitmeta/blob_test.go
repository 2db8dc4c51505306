package gitmeta

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// BlobFile agrees with git hash-object, and has no id for a directory or
// a missing file.
func TestBlobFileIsGitHashObject(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"empty": "", "a.go": "package a\n\nfunc Get() {}\n", "bin": "\x00\x01\xff"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok := BlobFile(p)
		want := clitest.Git(t, dir, "hash-object", "--no-filters", name)
		if !ok || got != want {
			t.Errorf("BlobFile(%s) = %q, %v; git hash-object says %q", name, got, ok, want)
		}
	}
	if _, ok := BlobFile(dir); ok {
		t.Error("a directory has a blob id")
	}
	if _, ok := BlobFile(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file has a blob id")
	}
}

//go:build linux || darwin

package filestat

import (
	"os"
	"path/filepath"
	"testing"
)

// Of reads a file's identity from its stat: size and inode as they are,
// and a write or a rename over the file changes it.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	if err := os.WriteFile(p, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := func() FileID {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := Of(fi)
		if !ok || got.Size != fi.Size() || got.Mtime != fi.ModTime().UnixNano() || got.Ino == 0 || got.Ctime == 0 {
			t.Fatalf("Of = %+v, %v for %v", got, ok, fi)
		}
		return got
	}
	first := id()
	if err := os.WriteFile(p+".new", []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".new", p); err != nil {
		t.Fatal(err)
	}
	if id() == first {
		t.Error("a rename over the file left its identity as it was")
	}
	if !Owned(dir, mustLstat(t, dir)) {
		t.Error("Owned = false for a directory this process made")
	}
}

func mustLstat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

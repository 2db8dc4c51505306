//go:build unix

package fsx

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Everything written under a private part of a root is the person's: 0600
// files in 0700 directories, whatever the umask, and a file or directory
// left looser by an older cairn is tightened by the next write.
func TestPrivateModes(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	dir := t.TempDir()
	r := NewRoot(dir).PrivateUnder("local")
	mode := func(name string) os.FileMode {
		t.Helper()
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if err := r.WriteAtomic("knowledge.jsonl", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.ReplaceFile("local/sessions/a.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := r.OpenFile("local/injections.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, want := range map[string]os.FileMode{
		"knowledge.jsonl": 0o644, "local": 0o700, "local/sessions": 0o700,
		"local/sessions/a.json": 0o600, "local/injections.jsonl": 0o600,
	} {
		if got := mode(name); got != want {
			t.Errorf("%s: %o, want %o", name, got, want)
		}
	}
	// An older cairn's loose files and directories are tightened by the
	// next write.
	for name, m := range map[string]os.FileMode{"local": 0o755, "local/sessions": 0o755, "local/sessions/a.json": 0o644, "local/injections.jsonl": 0o644} {
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.ReplaceFile("local/sessions/a.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err = r.OpenFile("local/injections.jsonl", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for name, want := range map[string]os.FileMode{"local": 0o700, "local/sessions": 0o700, "local/sessions/a.json": 0o600, "local/injections.jsonl": 0o600} {
		if got := mode(name); got != want {
			t.Errorf("after a write, %s: %o, want %o", name, got, want)
		}
	}
	// Reading leaves modes alone.
	if err := os.Chmod(filepath.Join(dir, "local", "injections.jsonl"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadFile("local/injections.jsonl", 100); err != nil {
		t.Fatal(err)
	}
	if got := mode("local/injections.jsonl"); got != 0o640 {
		t.Errorf("a read changed the mode to %o", got)
	}
	// A private root and the helpers outside one.
	p := NewPrivateRoot(filepath.Join(dir, "data"))
	if err := p.WriteAtomic("personal/knowledge.jsonl", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(filepath.Join(dir, "open", "page.html"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := MkdirPrivate(filepath.Join(dir, "state")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"data": 0o700, "data/personal": 0o700, "data/personal/knowledge.jsonl": 0o600, "open": 0o700, "open/page.html": 0o600, "state": 0o700} {
		if got := mode(name); got != want {
			t.Errorf("%s: %o, want %o", name, got, want)
		}
	}
}

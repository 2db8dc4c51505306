//go:build unix

package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO or a link at the target is refused (never written through,
// never blocked on), and a FIFO offered as the built file is refused too;
// no temporary file of the install is left and the special file stays.
func TestInstallRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	r := NewRoot(dir)
	must(t, syscall.Mkfifo(filepath.Join(dir, "active.jsonl"), 0o644))
	outside := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(outside, []byte("SECRET"), 0o600))
	must(t, os.Symlink(outside, filepath.Join(dir, "audit.jsonl")))

	for _, tc := range []struct{ name, what string }{{"active.jsonl", "FIFO"}, {"audit.jsonl", "link"}} {
		tmp, err := r.CreateTemp(tc.name, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		tmp.File.WriteString("new")
		err = tmp.Install()
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), tc.what) {
			t.Errorf("Install over a %s = %v; want it refused", tc.what, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "active.jsonl")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "SECRET" {
		t.Errorf("the link's target was written: %q", b)
	}

	if left := tempsIn(t, dir); len(left) != 0 {
		t.Errorf("refused installs left %v", left)
	}

	fifo := TempFor("index.db")
	must(t, syscall.Mkfifo(filepath.Join(dir, fifo), 0o644))
	if err := r.Install(fifo, "index.db"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("Install of a FIFO = %v; want it refused", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.db")); err == nil {
		t.Error("a FIFO was installed")
	}
}

//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostile builds a root with a link or special file at every place a
// committed .cairn could hold one, pointing at an "outside" directory
// that holds a secret, and returns the root and the outside directory.
func hostile(t *testing.T) (Root, string) {
	t.Helper()
	base := t.TempDir()
	outside := filepath.Join(base, "home")
	must(t, os.MkdirAll(filepath.Join(outside, ".ssh"), 0o755))
	must(t, os.WriteFile(filepath.Join(outside, ".ssh", "id"), []byte("SECRET"), 0o600))
	dir := filepath.Join(base, "proj", ".cairn")
	must(t, os.MkdirAll(filepath.Join(dir, "local"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "cache"), 0o755))
	must(t, os.Symlink(filepath.Join(outside, ".ssh", "id"), filepath.Join(dir, "log")))    // absolute link to a file
	must(t, os.Symlink("../../home/.ssh", filepath.Join(dir, "local", "sessions")))         // relative link to a dir
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))                            // link to a device
	must(t, os.Symlink("log", filepath.Join(dir, "inner")))                                 // link inside the root
	must(t, os.Symlink(filepath.Join(outside, ".ssh"), filepath.Join(dir, "cache", "sub"))) // dir link deeper
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))                              // a FIFO
	must(t, os.WriteFile(filepath.Join(dir, "plain"), []byte("plain"), 0o644))              // a regular file
	return NewRoot(dir), outside
}

func TestRootRefusesLinksAndSpecialFiles(t *testing.T) {
	r, outside := hostile(t)
	for _, tc := range []struct{ name, what string }{
		{"log", "a symlink"},
		{"zero", "a symlink"},
		{"inner", "a symlink"},
		{"fifo", "a FIFO"},
		{"local/sessions/id", "a symlink"},
		{"cache/sub/id", "a symlink"},
	} {
		t.Run(strings.ReplaceAll(tc.name, "/", "_"), func(t *testing.T) {
			checkUnsafe := func(op string, err error) {
				t.Helper()
				var ue *UnsafeError
				if !errors.As(err, &ue) || !errors.Is(err, ErrUnsafe) {
					t.Errorf("%s(%s) = %v; want an UnsafeError", op, tc.name, err)
					return
				}
				if !strings.Contains(ue.What, strings.TrimPrefix(tc.what, "a ")) {
					t.Errorf("%s(%s): %q; want it to say %s", op, tc.name, ue.Error(), tc.what)
				}
				if !strings.HasPrefix(ue.Path, ".cairn/") {
					t.Errorf("%s(%s): path %q; want it as the user finds it, from .cairn/", op, tc.name, ue.Path)
				}
			}
			_, err := r.ReadFile(tc.name, 1<<20)
			checkUnsafe("ReadFile", err)
			checkUnsafe("WriteAtomic", r.WriteAtomic(tc.name, []byte("x"), 0o644))
			checkUnsafe("ReplaceFile", r.ReplaceFile(tc.name, []byte("x"), 0o644))
			_, err = r.CreateIfMissing(tc.name, []byte("x"), 0o644)
			if err != nil { // a missing name behind a link is refused; an existing one counts as existing
				checkUnsafe("CreateIfMissing", err)
			}
			f, err := r.OpenFile(tc.name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				f.Close()
			}
			checkUnsafe("OpenFile(append)", err)
			_, err = r.Acquire(tc.name, 0)
			checkUnsafe("Acquire", err)
			checkUnsafe("CheckFile", r.CheckFile(tc.name))
			_, err = r.StatID(tc.name)
			checkUnsafe("StatID", err)
			checkUnsafe("Remove", r.Remove(tc.name))
			checkUnsafe("Link", r.Link(tc.name, "cache/linked"))
		})
	}
	if b, err := os.ReadFile(filepath.Join(outside, ".ssh", "id")); err != nil || string(b) != "SECRET" {
		t.Errorf("the file outside the root changed: %q, %v", b, err)
	}
	ents, _ := os.ReadDir(filepath.Join(outside, ".ssh"))
	if len(ents) != 1 {
		t.Errorf("files appeared outside the root: %v", ents)
	}
	for _, link := range []string{"log", "zero", "inner", "local/sessions", "cache/sub"} {
		if fi, err := os.Lstat(r.Path(link)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer the link it was: %v, %v", link, fi, err)
		}
	}
}

// Link gives a regular file a second name, in another directory of the
// root too, and never replaces an existing name.
func TestRootLink(t *testing.T) {
	r, _ := hostile(t)
	must(t, r.Link("plain", "cache/plain-too"))
	if b, err := os.ReadFile(r.Path("cache/plain-too")); err != nil || string(b) != "plain" {
		t.Errorf("linked file reads %q, %v", b, err)
	}
	if err := r.Link("plain", "cache/plain-too"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Link over an existing name = %v, want ErrExist", err)
	}
	if err := r.Link("missing", "cache/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Link of a missing file = %v, want ErrNotExist", err)
	}
}

func TestRootItselfALink(t *testing.T) {
	base := t.TempDir()
	target := filepath.Join(base, "target")
	must(t, os.Mkdir(target, 0o755))
	link := filepath.Join(base, ".cairn")
	must(t, os.Symlink(target, link))
	r := NewRoot(link)
	for op, err := range map[string]error{
		"MkdirAll":    r.MkdirAll("cache"),
		"WriteAtomic": r.WriteAtomic("knowledge.jsonl", []byte("x"), 0o644),
	} {
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("%s through a root that is a link = %v; want refused", op, err)
		}
	}
	if ok, err := r.IsDir(""); ok || !errors.Is(err, ErrUnsafe) {
		t.Errorf("IsDir = %v, %v; want false, unsafe", ok, err)
	}
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("wrote through the link: %v", ents)
	}
	found, err := r.FindUnsafe(10)
	if err != nil || len(found) != 1 || found[0].Path != ".cairn" {
		t.Errorf("FindUnsafe = %v, %v; want the root itself", found, err)
	}
}

func TestRootWritesAndLists(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cairn")
	r := NewRoot(dir)
	must(t, r.WriteAtomic("cache/sub/f.json", []byte("one"), 0o600))
	must(t, r.ReplaceFile("cache/sub/f.json", []byte("two"), 0o644))
	fi, err := os.Stat(r.Path("cache/sub/f.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after replace: %v, %v; want the existing 0600 kept", fi, err)
	}
	if b, _ := r.ReadFile("cache/sub/f.json", 100); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	created, err := r.CreateIfMissing("cache/sub/f.json", []byte("three"), 0o644)
	if created || err != nil {
		t.Errorf("CreateIfMissing over an existing file = %v, %v", created, err)
	}
	if b, _ := r.ReadFile("cache/sub/f.json", 100); string(b) != "two" {
		t.Errorf("CreateIfMissing replaced a file: %q", b)
	}
	ents, err := r.ReadDir("cache/sub")
	if err != nil || len(ents) != 1 || !ents[0].Regular || ents[0].Name != "f.json" {
		t.Errorf("ReadDir = %+v, %v; want only f.json (no temp left)", ents, err)
	}
	must(t, r.WriteAtomic("cache/g", []byte("g"), 0o644))
	must(t, r.Rename("cache/g", "cache/h"))
	if b, _ := r.ReadFile("cache/h", 10); string(b) != "g" {
		t.Errorf("after rename: %q", b)
	}
	must(t, r.Remove("cache/h"))
	must(t, r.Remove("cache/h")) // missing: no error
	if id, err := r.StatID("cache/h"); err != nil || id != (FileID{}) {
		t.Errorf("StatID(missing) = %v, %v", id, err)
	}
}

// TestRemoveStaleTempsOnlyAbandoned: a fresh temp file (a live writer's)
// survives a sweep; an old one goes; a link named like one stays.
func TestRemoveStaleTempsOnlyAbandoned(t *testing.T) {
	dir := t.TempDir()
	r := NewRoot(dir)
	fresh := filepath.Join(dir, ".log"+tempMarker+"1-aa")
	old := filepath.Join(dir, ".log"+tempMarker+"2-bb")
	link := filepath.Join(dir, ".log"+tempMarker+"3-cc")
	other := filepath.Join(dir, ".other"+tempMarker+"4-dd")
	for _, p := range []string{fresh, old, other} {
		must(t, os.WriteFile(p, nil, 0o644))
	}
	must(t, os.Symlink(old, link))
	past := time.Now().Add(-2 * AbandonedAge)
	for _, p := range []string{old, other} {
		must(t, os.Chtimes(p, past, past))
	}
	n, err := r.RemoveStaleTemps("log", time.Now())
	if err != nil || n != 1 {
		t.Errorf("RemoveStaleTemps = %d, %v; want 1", n, err)
	}
	for p, want := range map[string]bool{fresh: true, old: false, link: true, other: true} {
		_, err := os.Lstat(p)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v; want %v", filepath.Base(p), got, want)
		}
	}
}

// TestRootFIFONeverBlocks: opening a FIFO (no writer on the other side) to
// read returns at once with a refusal.
func TestRootFIFONeverBlocks(t *testing.T) {
	dir := t.TempDir()
	must(t, syscall.Mkfifo(filepath.Join(dir, "config.json"), 0o644))
	_, err := NewRoot(dir).ReadFile("config.json", 1<<20)
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("ReadFile(FIFO) = %v; want refused as a FIFO", err)
	}
}

func TestFindUnsafe(t *testing.T) {
	r, _ := hostile(t)
	found, err := r.FindUnsafe(100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range found {
		got[u.Path] = u.What
	}
	want := map[string]string{
		".cairn/log": "a symlink", ".cairn/zero": "a symlink", ".cairn/inner": "a symlink",
		".cairn/fifo": "a FIFO", ".cairn/local/sessions": "a symlink", ".cairn/cache/sub": "a symlink",
	}
	if len(got) != len(want) {
		t.Errorf("FindUnsafe = %v; want %v", got, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q; want %q", p, got[p], w)
		}
	}
	if found, _ := r.FindUnsafe(2); len(found) != 2 {
		t.Errorf("FindUnsafe(2) returned %d", len(found))
	}
}

// TestRootNeverCreatesParents: a root whose parent is missing is not
// created (a hook's payload may name any directory).
func TestRootNeverCreatesParents(t *testing.T) {
	base := t.TempDir()
	r := NewRoot(filepath.Join(base, "does", "not", "exist", ".cairn"))
	if err := r.MkdirAll("cache"); err == nil {
		t.Error("MkdirAll created a root whose parent is missing")
	}
	if _, err := os.Stat(filepath.Join(base, "does")); !os.IsNotExist(err) {
		t.Errorf("a parent was created: %v", err)
	}
}

// FuzzRootNames: whatever name is asked for, an accepted one stays below
// the root (no component is "." or ".." or empty, it is not absolute), and
// a write through it never creates anything outside.
func FuzzRootNames(f *testing.F) {
	for _, s := range []string{"knowledge.jsonl", "cache/index.db", "../x", "a/../../b", "/etc/passwd", "a//b", ".", "local/sessions/ab.json"} {
		f.Add(s)
	}
	base := f.TempDir()
	r := NewRoot(filepath.Join(base, "root"))
	f.Fuzz(func(t *testing.T, name string) {
		parts, err := split(name)
		if err != nil {
			return
		}
		for _, p := range parts {
			if p == "" || p == "." || p == ".." || strings.ContainsRune(p, 0) {
				t.Fatalf("split(%q) accepted component %q", name, p)
			}
		}
		if rel, err := filepath.Rel(r.Dir(), r.Path(name)); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			t.Fatalf("Path(%q) = %s is outside the root", name, r.Path(name))
		}
		if len(parts) > 3 || len(name) > 200 {
			return
		}
		_ = r.WriteAtomic(name, []byte("x"), 0o644)
		ents, _ := os.ReadDir(base)
		if len(ents) > 1 {
			t.Fatalf("writing %q created something beside the root: %v", name, ents)
		}
	})
}

// statInfo is an fs.FileInfo with a given stat, for Owned.
type statInfo struct {
	fs.FileInfo
	st *syscall.Stat_t
}

func (s statInfo) Sys() any { return s.st }

// TestOwnedByOther: a directory another user owns is not ours.
func TestOwnedByOther(t *testing.T) {
	dir := t.TempDir()
	fi, err := os.Lstat(dir)
	must(t, err)
	st := *fi.Sys().(*syscall.Stat_t)
	st.Uid = uint32(os.Getuid() + 1)
	if Owned(dir, statInfo{fi, &st}) {
		t.Error("Owned = true for another user's directory")
	}
}

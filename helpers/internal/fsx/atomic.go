package fsx

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
)

// This file is the atomic install for a file its caller writes itself (a
// stream through a buffered writer, a database another library builds at a
// path): a temporary file beside the target, fsync, rename, fsync of the
// directory. [Root.WriteAtomic] is the same recipe for content at hand.

// Temp is a temporary file below a root that will replace a file there:
// created new (O_EXCL) in the target's directory, under a name
// [Root.RemoveStaleTemps] and [IsTemp] recognise. Write to File, then
// [Temp.Install] it or [Temp.Abort] it; either leaves no temporary file.
type Temp struct {
	File *os.File
	root Root
	tmp  string // its name below the root
	name string // the file it replaces
}

// CreateTemp creates the temporary file that will replace name (a name
// below r) with mode perm; name's directory is created as needed.
func (r Root) CreateTemp(name string, perm os.FileMode) (*Temp, error) {
	tmp := TempFor(name)
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, fmt.Errorf("create temp for %s: %w", r.display(name), err)
	}
	return &Temp{File: f, root: r, tmp: tmp, name: name}, nil
}

// TempFor is a fresh temporary name (below the same root, in the same
// directory) for a file that will replace name.
func TempFor(name string) string {
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i+1], name[i+1:]
	}
	return dir + tempName(base)
}

// Name is the temporary file's name below the root.
func (t *Temp) Name() string { return t.tmp }

// Install syncs and closes the temporary file and puts it in place of the
// file it replaces (see [Root.Install]). On any failure the temporary
// file is removed and the target is left as it was.
func (t *Temp) Install() error {
	if t.File == nil {
		return fmt.Errorf("install %s: already installed or aborted", t.root.display(t.name))
	}
	f := t.File
	t.File = nil
	if err := f.Sync(); err != nil {
		f.Close()
		t.root.Remove(t.tmp)
		return fmt.Errorf("sync %s: %w", t.root.display(t.name), err)
	}
	if err := f.Close(); err != nil {
		t.root.Remove(t.tmp)
		return fmt.Errorf("close %s: %w", t.root.display(t.name), err)
	}
	return t.root.install(t.tmp, t.name, false)
}

// Abort closes and removes the temporary file, if Install has not taken
// it. It is safe to call after Install (a deferred Abort).
func (t *Temp) Abort() {
	if t.File == nil {
		return
	}
	t.File.Close()
	t.File = nil
	t.root.Remove(t.tmp)
}

// Install puts the regular file tmp, written and closed by its caller, in
// place of name, both below r in one directory: tmp is synced to disk,
// renamed over name, and the directory is synced, so after a crash name
// holds either its old content or the whole new one. A link, a directory,
// a FIFO or any other special file at either name is refused with an
// [UnsafeError], and name is left as it was. On any failure tmp is removed.
func (r Root) Install(tmp, name string) error {
	return r.install(tmp, name, true)
}

// install is [Root.Install]; sync says whether tmp still needs its fsync.
func (r Root) install(tmp, name string, sync bool) error {
	err := r.installOrKeep(tmp, name, sync)
	if err != nil {
		r.Remove(tmp)
	}
	return err
}

func (r Root) installOrKeep(tmp, name string, sync bool) error {
	if dirOf(tmp) != dirOf(name) {
		return fmt.Errorf("install %s as %s: not in one directory", tmp, name)
	}
	if sync {
		f, err := r.OpenFile(tmp, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("install %s: %w", r.display(name), err)
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("sync %s: %w", r.display(name), err)
		}
	}
	if beforeRename != nil {
		beforeRename(r.Path(tmp))
	}
	if err := r.Rename(tmp, name); err != nil {
		return fmt.Errorf("install %s: %w", r.display(name), err)
	}
	return r.syncDir(dirOf(name))
}

// syncDir syncs the directory dir below the root (the root for ""), so a
// rename in it survives a crash. Windows cannot open a directory to sync
// it, and some file systems refuse the sync (EINVAL): both are skipped.
func (r Root) syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	path := r.dir
	if dir != "" {
		path = r.Path(strings.TrimSuffix(dir, "/"))
	}
	d, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync dir of %s: %w", r.display(dir), err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync dir of %s: %w", r.display(dir), err)
	}
	return nil
}

// dirOf is the directory part of a name below a root, with its slash.
func dirOf(name string) string {
	return name[:strings.LastIndexByte(name, '/')+1]
}

//go:build windows

package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// badNameChars are refused in a name component besides "/" and NUL: a
// backslash is a separator on Windows, and a colon names an alternate data
// stream or a drive.
const badNameChars = `\:`

// cause is the error under a *fs.PathError, to report it with the name a
// user finds.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openRoot opens the root as an [os.Root] once lstat says it is a real
// directory (no link, no junction), creating it (never its parents) when
// create is set. The caller closes it.
func (r Root) openRoot(create bool) (*os.Root, error) {
	fi, err := os.Lstat(r.dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		if merr := os.Mkdir(r.dir, 0o755); merr != nil && !errors.Is(merr, fs.ErrExist) {
			return nil, &fs.PathError{Op: "mkdir", Path: r.dir, Err: cause(merr)}
		}
		fi, err = os.Lstat(r.dir)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: r.dir, Err: cause(err)}
	}
	if fi.Mode().Type() != fs.ModeDir {
		return nil, &UnsafeError{Path: r.display(""), What: describe(fi.Mode())}
	}
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: r.dir, Err: cause(err)}
	}
	return root, nil
}

// openDir opens the root and checks that the directory name below it is a
// real directory, every component of it, creating missing ones when create
// is set. The caller closes the root.
func (r Root) openDir(name string, create bool) (*os.Root, error) {
	parts, err := split(name)
	if err != nil {
		return nil, err
	}
	root, err := r.openRoot(create)
	if err != nil {
		return nil, err
	}
	for i := range parts {
		sofar := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(sofar)
		if errors.Is(err, fs.ErrNotExist) && create {
			if merr := root.Mkdir(sofar, 0o755); merr != nil && !errors.Is(merr, fs.ErrExist) {
				root.Close()
				return nil, &fs.PathError{Op: "mkdir", Path: r.display(sofar), Err: cause(merr)}
			}
			fi, err = root.Lstat(sofar)
		}
		if err != nil {
			root.Close()
			return nil, &fs.PathError{Op: "open", Path: r.display(sofar), Err: cause(err)}
		}
		if fi.Mode().Type() != fs.ModeDir {
			root.Close()
			return nil, &UnsafeError{Path: r.display(sofar), What: describe(fi.Mode())}
		}
	}
	return root, nil
}

// parent opens the root and checks the directories above name.
func (r Root) parent(name string, create bool) (*os.Root, error) {
	if _, err := split(name); err != nil || name == "" {
		return nil, fmt.Errorf("invalid name %q under a confined directory", name)
	}
	dir := ""
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir = name[:i]
	}
	return r.openDir(dir, create)
}

// lstat returns what name below root is, not following it; ok is false
// when it does not exist.
func (r Root) lstat(root *os.Root, name string) (fi fs.FileInfo, ok bool, err error) {
	fi, err = root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &fs.PathError{Op: "stat", Path: r.display(name), Err: cause(err)}
	}
	return fi, true, nil
}

// regular checks that name below root is a regular file or missing.
func (r Root) regular(root *os.Root, name string) (exists bool, perm fs.FileMode, err error) {
	fi, ok, err := r.lstat(root, name)
	if err != nil || !ok {
		return false, 0, err
	}
	if fi.Mode().Type() != 0 {
		return true, 0, &UnsafeError{Path: r.display(name), What: describe(fi.Mode())}
	}
	return true, fi.Mode().Perm(), nil
}

// OpenFile opens the regular file name below the root with flag (os.O_*
// flags; O_CREATE creates missing directories too). A link or a special
// file is refused with an [UnsafeError].
func (r Root) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	root, err := r.parent(name, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if _, _, err := r.regular(root, name); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(name, flag, r.filePerm(name, perm))
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: fs.ErrNotExist}
		case errors.Is(err, fs.ErrPermission):
			return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: fs.ErrPermission}
		}
		return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: cause(err)}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "stat", Path: r.display(name), Err: cause(err)}
	}
	if fi.Mode().Type() != 0 {
		f.Close()
		return nil, &UnsafeError{Path: r.display(name), What: describe(fi.Mode())}
	}
	return f, nil
}

// MkdirAll creates the directory name below the root, and the root, as
// needed (never the root's parents).
func (r Root) MkdirAll(name string) error {
	root, err := r.openDir(name, true)
	if err != nil {
		return err
	}
	return root.Close()
}

// IsDir reports whether the root, or name below it, is a real directory.
// It is false when it is missing, and an [UnsafeError] when it is a link
// or not a directory.
func (r Root) IsDir(name string) (bool, error) {
	root, err := r.openDir(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	root.Close()
	return true, nil
}

// CheckFile makes sure name can be opened by path by another library
// (SQLite): its directories are real directories below the root (created
// when missing) and it is a regular file or does not exist.
func (r Root) CheckFile(name string) error {
	root, err := r.parent(name, true)
	if err != nil {
		return err
	}
	defer root.Close()
	_, _, err = r.regular(root, name)
	return err
}

// fileBasicInfo is FILE_BASIC_INFO, for the change time, which
// GetFileInformationByHandle does not give.
type fileBasicInfo struct {
	CreationTime   int64
	LastAccessTime int64
	LastWriteTime  int64
	ChangeTime     int64
	FileAttributes uint32
	_              uint32
}

// unixNano turns a FILETIME count (100 ns since 1601) into nanoseconds
// since 1970.
func unixNano(ft int64) int64 { return (ft - 116444736000000000) * 100 }

// StatID returns the [FileID] of the regular file name below the root; a
// missing file has the zero ID. The inode is the file index, which a
// rename over the file changes.
func (r Root) StatID(name string) (FileID, error) {
	root, err := r.parent(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return FileID{}, nil
	}
	if err != nil {
		return FileID{}, err
	}
	defer root.Close()
	exists, _, err := r.regular(root, name)
	if err != nil || !exists {
		return FileID{}, err
	}
	f, err := root.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return FileID{}, nil
	}
	if err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: r.display(name), Err: cause(err)}
	}
	defer f.Close()
	h := windows.Handle(f.Fd())
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	var basic fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))); err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return FileID{}, &UnsafeError{Path: r.display(name), What: "a reparse point"}
	}
	return FileID{
		Size:  int64(info.FileSizeHigh)<<32 | int64(info.FileSizeLow),
		Mtime: unixNano(basic.LastWriteTime),
		Ctime: unixNano(basic.ChangeTime),
		Ino:   uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow),
	}, nil
}

// Remove deletes the regular file name below the root. A missing file is
// not an error; a link or special file is refused and left alone.
func (r Root) Remove(name string) error {
	root, err := r.parent(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer root.Close()
	exists, _, err := r.regular(root, name)
	if err != nil || !exists {
		return err
	}
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "remove", Path: r.display(name), Err: cause(err)}
	}
	return nil
}

// ReadDir lists the directory name below the root without following
// anything; a missing directory lists nothing.
func (r Root) ReadDir(name string) ([]DirEntry, error) {
	root, err := r.openDir(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer root.Close()
	dir := name
	if dir == "" {
		dir = "."
	}
	f, err := root.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", r.display(name), err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", r.display(name), err)
	}
	out := make([]DirEntry, 0, len(ents))
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		m := fi.Mode()
		out = append(out, DirEntry{Name: e.Name(), Regular: m.Type() == 0, Dir: m.Type() == fs.ModeDir,
			Mode: m, ModTime: fi.ModTime()})
	}
	return out, nil
}

func (r Root) replace(name string, write func(*os.File) error, perm os.FileMode, durable, exclusive bool) error {
	root, err := r.parent(name, true)
	if err != nil {
		return err
	}
	defer root.Close()
	exists, oldPerm, err := r.regular(root, name)
	if err != nil {
		return err
	}
	if exists {
		if exclusive {
			return &fs.PathError{Op: "create", Path: r.display(name), Err: fs.ErrExist}
		}
		perm = oldPerm
	}
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i+1], name[i+1:]
	}
	tmp := dir + tempName(base)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, r.filePerm(name, perm))
	if err != nil {
		return &fs.PathError{Op: "create temp for", Path: r.display(name), Err: cause(err)}
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if err := r.fill(f, tmp, name, write, durable); err != nil {
		return err
	}
	if exclusive {
		// A hard link fails if the name exists: create-if-absent with the
		// whole content at once.
		err = root.Link(tmp, name)
		root.Remove(tmp)
		if errors.Is(err, fs.ErrExist) {
			ok = true
			return &fs.PathError{Op: "create", Path: r.display(name), Err: fs.ErrExist}
		}
	} else {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		return &fs.PathError{Op: "replace", Path: r.display(name), Err: cause(err)}
	}
	ok = true
	return nil
}

// Rename moves the regular file oldName over newName, both below the root
// in the same directory. A link or special file at either name is refused.
func (r Root) Rename(oldName, newName string) error {
	root, err := r.parent(oldName, false)
	if err != nil {
		return err
	}
	defer root.Close()
	odir, _ := filepath.Split(oldName)
	ndir, _ := filepath.Split(newName)
	if odir != ndir {
		return fmt.Errorf("rename %s to %s: not in one directory", oldName, newName)
	}
	exists, _, err := r.regular(root, oldName)
	if err != nil {
		return err
	}
	if !exists {
		return &fs.PathError{Op: "rename", Path: r.display(oldName), Err: fs.ErrNotExist}
	}
	if _, _, err := r.regular(root, newName); err != nil {
		return err
	}
	if err := root.Rename(oldName, newName); err != nil {
		return &fs.PathError{Op: "rename", Path: r.display(oldName), Err: cause(err)}
	}
	return nil
}

// Link is not offered on Windows: it reports [errors.ErrUnsupported].
func (r Root) Link(oldName, newName string) error {
	return fmt.Errorf("link %s: %w", r.display(newName), errors.ErrUnsupported)
}

//go:build unix

package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// badNameChars are refused in a name component besides "/" and NUL: none
// on Unix.
const badNameChars = ""

// modeOf turns the mode of a stat into an [fs.FileMode].
func modeOf(raw uint32) fs.FileMode {
	m := fs.FileMode(raw) & fs.ModePerm
	switch raw & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	default:
		m |= fs.ModeIrregular
	}
	return m
}

// isRegular reports whether a stat is of a regular file.
func isRegular(st *unix.Stat_t) bool { return uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG }

// unsafeAt describes why component base of the directory dfd could not be
// opened as wanted, or returns err itself when it is not about the file's
// kind.
func (r Root) unsafeAt(dfd int, base, name string, err error) error {
	if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ENXIO) &&
		!errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.EISDIR) {
		return &fs.PathError{Op: "open", Path: r.display(name), Err: err}
	}
	var st unix.Stat_t
	if serr := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
		return &fs.PathError{Op: "open", Path: r.display(name), Err: err}
	}
	return &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
}

const (
	dirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fileFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
)

// openRoot opens the root directory itself, creating it (never its
// parents) when create is set.
func (r Root) openRoot(create bool) (int, error) {
	for attempt := 0; ; attempt++ {
		fd, err := unix.Open(r.dir, dirFlags, 0)
		if err == nil {
			return fd, nil
		}
		if errors.Is(err, unix.ENOENT) && create && attempt == 0 {
			if merr := unix.Mkdir(r.dir, r.dirPerm("")); merr != nil && !errors.Is(merr, unix.EEXIST) {
				return -1, &fs.PathError{Op: "mkdir", Path: r.dir, Err: merr}
			}
			continue
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			var st unix.Stat_t
			if unix.Lstat(r.dir, &st) == nil {
				return -1, &UnsafeError{Path: r.display(""), What: describe(modeOf(uint32(st.Mode)))}
			}
		}
		return -1, &fs.PathError{Op: "open", Path: r.dir, Err: err}
	}
}

// openDir opens the directory name below the root, every component
// without following links, creating missing ones when create is set. The
// caller closes the descriptor.
func (r Root) openDir(name string, create bool) (int, error) {
	parts, err := split(name)
	if err != nil {
		return -1, err
	}
	fd, err := r.openRoot(create)
	if err != nil {
		return -1, err
	}
	if create {
		r.tighten(fd, "", 0o700)
	}
	for i, p := range parts {
		sofar := strings.Join(parts[:i+1], "/")
		nfd, err := unix.Openat(fd, p, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if merr := unix.Mkdirat(fd, p, r.dirPerm(sofar)); merr != nil && !errors.Is(merr, unix.EEXIST) {
				unix.Close(fd)
				return -1, &fs.PathError{Op: "mkdir", Path: r.display(sofar), Err: merr}
			}
			nfd, err = unix.Openat(fd, p, dirFlags, 0)
		}
		if err != nil {
			uerr := r.unsafeAt(fd, p, sofar, err)
			unix.Close(fd)
			return -1, uerr
		}
		unix.Close(fd)
		fd = nfd
		if create {
			r.tighten(fd, sofar, 0o700)
		}
	}
	return fd, nil
}

// tighten takes the group and other bits off fd, the file or directory
// name below the root, when name is private and fd is the person's own
// (see [Root.PrivateUnder]); want is the most it may keep. A failure
// leaves it as it was: the write goes on.
func (r Root) tighten(fd int, name string, want uint32) {
	if !r.isPrivate(name) {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || int(st.Uid) != os.Geteuid() {
		return
	}
	if mode := uint32(st.Mode) & 0o777; mode&^want != 0 {
		_ = unix.Fchmod(fd, mode&want)
	}
}

// parent opens the directory that holds name and returns it with name's
// last component.
func (r Root) parent(name string, create bool) (int, string, error) {
	if _, err := split(name); err != nil || name == "" {
		return -1, "", fmt.Errorf("invalid name %q under a confined directory", name)
	}
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	fd, err := r.openDir(dir, create)
	return fd, base, err
}

// OpenFile opens the regular file name below the root with flag (os.O_*
// flags; O_CREATE creates missing directories too). A link or a special
// file is refused with an [UnsafeError].
func (r Root) OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	dfd, base, err := r.parent(name, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	return r.openAt(dfd, base, name, flag, perm)
}

func (r Root) openAt(dfd int, base, name string, flag int, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Openat(dfd, base, flag|fileFlags, uint32(r.filePerm(name, perm)))
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: fs.ErrNotExist}
		}
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: fs.ErrPermission}
		}
		return nil, r.unsafeAt(dfd, base, name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if !isRegular(&st) {
		unix.Close(fd)
		return nil, &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: err}
	}
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE) != 0 {
		r.tighten(fd, name, 0o700)
	}
	return os.NewFile(uintptr(fd), r.Path(name)), nil
}

// MkdirAll creates the directory name below the root, and the root, as
// needed (never the root's parents).
func (r Root) MkdirAll(name string) error {
	fd, err := r.openDir(name, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// IsDir reports whether the root, or name below it, is a real directory.
// It is false when it is missing, and an [UnsafeError] when it is a link
// or not a directory.
func (r Root) IsDir(name string) (bool, error) {
	fd, err := r.openDir(name, false)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	unix.Close(fd)
	return true, nil
}

// lstatAt returns the stat of base in dfd without following it; ok is
// false when it does not exist.
func lstatAt(dfd int, base string) (unix.Stat_t, bool, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	return st, err == nil, err
}

// CheckFile makes sure name can be opened by path by another library
// (SQLite): its directories are real directories below the root (created
// when missing) and it is a regular file or does not exist.
func (r Root) CheckFile(name string) error {
	dfd, base, err := r.parent(name, true)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	st, ok, err := lstatAt(dfd, base)
	if err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if ok && !isRegular(&st) {
		return &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
	}
	return nil
}

// StatID returns the [FileID] of the regular file name below the root; a
// missing file has the zero ID.
func (r Root) StatID(name string) (FileID, error) {
	dfd, base, err := r.parent(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return FileID{}, nil
	}
	if err != nil {
		return FileID{}, err
	}
	defer unix.Close(dfd)
	st, ok, err := lstatAt(dfd, base)
	if err != nil {
		return FileID{}, &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if !ok {
		return FileID{}, nil
	}
	if !isRegular(&st) {
		return FileID{}, &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
	}
	return FileID{Size: int64(st.Size), Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: uint64(st.Ino)}, nil
}

// Remove deletes the regular file name below the root. A missing file is
// not an error; a link or special file is refused and left alone.
func (r Root) Remove(name string) error {
	dfd, base, err := r.parent(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	st, ok, err := lstatAt(dfd, base)
	if err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if !ok {
		return nil
	}
	if !isRegular(&st) {
		return &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
	}
	if err := unix.Unlinkat(dfd, base, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: r.display(name), Err: err}
	}
	return nil
}

// ReadDir lists the directory name below the root without following
// anything; a missing directory lists nothing.
func (r Root) ReadDir(name string) ([]DirEntry, error) {
	fd, err := r.openDir(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), r.Path(name))
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", r.display(name), err)
	}
	out := make([]DirEntry, 0, len(names))
	for _, n := range names {
		st, ok, err := lstatAt(fd, n)
		if err != nil || !ok {
			continue
		}
		m := modeOf(uint32(st.Mode))
		out = append(out, DirEntry{Name: n, Regular: m.Type() == 0, Dir: m.Type() == fs.ModeDir,
			Mode: m, ModTime: time.Unix(0, st.Mtim.Nano())})
	}
	return out, nil
}

func (r Root) replace(name string, write func(*os.File) error, perm os.FileMode, durable, exclusive bool) error {
	dfd, base, err := r.parent(name, true)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	st, exists, err := lstatAt(dfd, base)
	if err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if exists {
		if !isRegular(&st) {
			return &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
		}
		if exclusive {
			return &fs.PathError{Op: "create", Path: r.display(name), Err: fs.ErrExist}
		}
		perm = modeOf(uint32(st.Mode)).Perm()
	}
	perm = r.filePerm(name, perm)
	tmp := tempName(base)
	tfd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &fs.PathError{Op: "create temp for", Path: r.display(name), Err: err}
	}
	f := os.NewFile(uintptr(tfd), tmp)
	ok := false
	defer func() {
		if !ok {
			f.Close()
			unix.Unlinkat(dfd, tmp, 0)
		}
	}()
	if err := f.Chmod(perm.Perm()); err != nil {
		return fmt.Errorf("chmod %s: %w", r.display(name), err)
	}
	if err := r.fill(f, tmp, name, write, durable); err != nil {
		return err
	}
	if exclusive {
		// A hard link fails if the name exists: create-if-absent with the
		// whole content at once.
		err = unix.Linkat(dfd, tmp, dfd, base, 0)
		unix.Unlinkat(dfd, tmp, 0)
		if errors.Is(err, unix.EEXIST) {
			ok = true
			return &fs.PathError{Op: "create", Path: r.display(name), Err: fs.ErrExist}
		}
	} else {
		err = unix.Renameat(dfd, tmp, dfd, base)
	}
	if err != nil {
		return &fs.PathError{Op: "replace", Path: r.display(name), Err: err}
	}
	ok = true
	if !durable {
		return nil
	}
	if err := unix.Fsync(dfd); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("sync dir of %s: %w", r.display(name), err)
	}
	return nil
}

// Rename moves the regular file oldName over newName, both below the root
// in the same directory. A link or special file at either name is refused.
func (r Root) Rename(oldName, newName string) error {
	dfd, oldBase, err := r.parent(oldName, false)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	odir, _ := filepath.Split(oldName)
	ndir, newBase := filepath.Split(newName)
	if odir != ndir {
		return fmt.Errorf("rename %s to %s: not in one directory", oldName, newName)
	}
	if err := r.existingRegular(dfd, oldBase, oldName, "rename"); err != nil {
		return err
	}
	if st, ok, err := lstatAt(dfd, newBase); err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(newName), Err: err}
	} else if ok && !isRegular(&st) {
		return &UnsafeError{Path: r.display(newName), What: describe(modeOf(uint32(st.Mode)))}
	}
	if err := unix.Renameat(dfd, oldBase, dfd, newBase); err != nil {
		return &fs.PathError{Op: "rename", Path: r.display(oldName), Err: err}
	}
	return nil
}

// Link gives the regular file oldName a second name, newName, which must
// not exist; both are below the root (in any directories of it). A link or
// special file at oldName is refused.
func (r Root) Link(oldName, newName string) error {
	odfd, oldBase, err := r.parent(oldName, false)
	if err != nil {
		return err
	}
	defer unix.Close(odfd)
	ndfd, newBase, err := r.parent(newName, false)
	if err != nil {
		return err
	}
	defer unix.Close(ndfd)
	if err := r.existingRegular(odfd, oldBase, oldName, "link"); err != nil {
		return err
	}
	if err := unix.Linkat(odfd, oldBase, ndfd, newBase, 0); err != nil {
		return &fs.PathError{Op: "link", Path: r.display(newName), Err: err}
	}
	return nil
}

// existingRegular fails, for op, unless base in dfd (name below the root)
// is a regular file: a missing one wraps fs.ErrNotExist, a link or special
// file is an UnsafeError.
func (r Root) existingRegular(dfd int, base, name, op string) error {
	st, ok, err := lstatAt(dfd, base)
	switch {
	case err != nil:
		return &fs.PathError{Op: op, Path: r.display(name), Err: err}
	case !ok:
		return &fs.PathError{Op: op, Path: r.display(name), Err: fs.ErrNotExist}
	case !isRegular(&st):
		return &UnsafeError{Path: r.display(name), What: describe(modeOf(uint32(st.Mode)))}
	}
	return nil
}

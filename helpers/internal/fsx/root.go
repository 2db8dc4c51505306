package fsx

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Root is a directory whose contents cairn reads and writes without ever
// leaving it. cairn's .cairn directory arrives by git pull from whoever
// pushed last, so nothing in it is trusted: every name under a Root is
// resolved one component at a time with O_NOFOLLOW, relative to the
// directory above it, so a symbolic link anywhere below the root (or the
// root itself being one) is refused rather than followed, and a name with
// ".." or an absolute name is refused before any system call. Only regular
// files are read or written: a FIFO, a device or a socket is refused too,
// and opened without blocking so that refusing it cannot hang.
//
// The directory that holds the root is trusted (it is the project the user
// works in); the root itself and everything below it are not.
type Root struct {
	dir string
}

// NewRoot returns the confined view of dir. dir need not exist yet.
func NewRoot(dir string) Root { return Root{dir: dir} }

// Dir is the root's path.
func (r Root) Dir() string { return r.dir }

// Path is the path of name under the root, for messages and for the few
// callers (SQLite) that must open a file by path after checking it with
// [Root.CheckFile].
func (r Root) Path(name string) string {
	if name == "" {
		return r.dir
	}
	return filepath.Join(r.dir, filepath.FromSlash(name))
}

// display names a file the way a user finds it: from the root's own name
// (".cairn/cache/index.db").
func (r Root) display(name string) string {
	if name == "" {
		return filepath.Base(r.dir)
	}
	return filepath.Base(r.dir) + "/" + name
}

// ErrUnsafe is matched (errors.Is) by every [UnsafeError].
var ErrUnsafe = errors.New("unsafe file")

// ErrTooLarge is returned by [Root.ReadFile] for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// UnsafeError reports a name under a root that cairn refuses to use: a
// symbolic link, a special file, or something that is not the directory
// or regular file it must be.
type UnsafeError struct {
	Path string // as the user finds it, e.g. ".cairn/knowledge.jsonl"
	What string // "a symlink", "a FIFO", "a device", "not a directory", ...
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("%s is %s; cairn never follows links or uses special files under .cairn (remove it: rm %s, or git rm if it is committed)",
		e.Path, e.What, ShellQuote(e.Path))
}

// Is makes errors.Is(err, ErrUnsafe) hold.
func (e *UnsafeError) Is(target error) bool { return target == ErrUnsafe }

// ShellQuote quotes a path for a shell command line shown to a person (a
// fix to run, a command for an agent), in single quotes when it needs any.
func ShellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// describe says what kind of file a mode is, for an [UnsafeError].
func describe(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return "a symlink"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFDIR:
		return "a directory, not a file"
	case unix.S_IFREG:
		return "a file, not a directory"
	}
	return "not a regular file"
}

// split checks a slash-separated name and returns its components. Empty
// components, ".", "..", absolute names and NUL bytes are refused.
func split(name string) ([]string, error) {
	if name == "" {
		return nil, nil
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.IndexByte(p, 0) >= 0 {
			return nil, fmt.Errorf("invalid name %q under a confined directory", name)
		}
	}
	return parts, nil
}

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
	return &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
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
			if merr := unix.Mkdir(r.dir, 0o755); merr != nil && !errors.Is(merr, unix.EEXIST) {
				return -1, &fs.PathError{Op: "mkdir", Path: r.dir, Err: merr}
			}
			continue
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			var st unix.Stat_t
			if unix.Lstat(r.dir, &st) == nil {
				return -1, &UnsafeError{Path: r.display(""), What: describe(st.Mode)}
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
	for i, p := range parts {
		sofar := strings.Join(parts[:i+1], "/")
		nfd, err := unix.Openat(fd, p, dirFlags, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if merr := unix.Mkdirat(fd, p, 0o755); merr != nil && !errors.Is(merr, unix.EEXIST) {
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
	}
	return fd, nil
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
	fd, err := unix.Openat(dfd, base, flag|fileFlags, uint32(perm.Perm()))
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
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: r.display(name), Err: err}
	}
	return os.NewFile(uintptr(fd), r.Path(name)), nil
}

// ReadFile reads the regular file name below the root, refusing one larger
// than max bytes with [ErrTooLarge] before reading it.
func (r Root) ReadFile(name string, max int64) ([]byte, error) {
	f, err := r.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, the cap is %d)", r.display(name), ErrTooLarge, fi.Size(), max)
	}
	data := make([]byte, 0, fi.Size()+1)
	data, err = readAllInto(io.LimitReader(f, max+1), data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.display(name), err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", r.display(name), ErrTooLarge, max)
	}
	return data, nil
}

func readAllInto(rd io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := rd.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
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

// lstatAt returns the mode of base in dfd without following it; ok is
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
	if ok && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
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
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return FileID{}, &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
	}
	return FileID{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}, nil
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
	return r.removeAt(dfd, base, name)
}

func (r Root) removeAt(dfd int, base, name string) error {
	st, ok, err := lstatAt(dfd, base)
	if err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(name), Err: err}
	}
	if !ok {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
	}
	if err := unix.Unlinkat(dfd, base, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: r.display(name), Err: err}
	}
	return nil
}

// DirEntry is one name in a directory below a root, with what lstat says
// of it.
type DirEntry struct {
	Name    string
	Regular bool      // a regular file (not a link, not special)
	Dir     bool      // a real directory
	Mode    uint32    // the raw mode, for describing anything else
	ModTime time.Time // modification time
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
		t := st.Mode & unix.S_IFMT
		out = append(out, DirEntry{Name: n, Regular: t == unix.S_IFREG, Dir: t == unix.S_IFDIR,
			Mode: st.Mode, ModTime: time.Unix(0, st.Mtim.Nano())})
	}
	return out, nil
}

// FindUnsafe walks the root and returns every link and special file below
// it (and the root itself when it is one), at most limit of them, as the
// user finds them.
func (r Root) FindUnsafe(limit int) ([]*UnsafeError, error) {
	rfd, err := r.openRoot(false)
	if err != nil {
		var ue *UnsafeError
		if errors.As(err, &ue) {
			return []*UnsafeError{ue}, nil
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	unix.Close(rfd)
	var out []*UnsafeError
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		ents, err := r.ReadDir(dir)
		if err != nil {
			var ue *UnsafeError
			if errors.As(err, &ue) {
				out = append(out, ue)
				return nil
			}
			return err
		}
		for _, e := range ents {
			if len(out) >= limit {
				return nil
			}
			name := e.Name
			if dir != "" {
				name = dir + "/" + e.Name
			}
			switch {
			case e.Dir:
				if depth < 8 {
					if err := walk(name, depth+1); err != nil {
						return err
					}
				}
			case !e.Regular:
				out = append(out, &UnsafeError{Path: r.display(name), What: describe(e.Mode)})
			}
		}
		return nil
	}
	return out, walk("", 0)
}

// tempName is a fresh temporary name for base: it carries the writer's
// process id and a random part, and the marker that [Root.RemoveStaleTemps]
// looks for.
func tempName(base string) string {
	var b [6]byte
	rand.Read(b[:])
	return "." + base + tempMarker + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// WriteAtomic replaces the regular file name below the root with data, as
// [WriteAtomic] does for a path: temp file, fsync, rename, fsync of the
// directory. A link or special file in its place is refused, not replaced.
func (r Root) WriteAtomic(name string, data []byte, perm os.FileMode) error {
	return r.replace(name, data, perm, true, false)
}

// ReplaceFile is [Root.WriteAtomic] without fsync, for disposable local
// state (see [ReplaceFile]).
func (r Root) ReplaceFile(name string, data []byte, perm os.FileMode) error {
	return r.replace(name, data, perm, false, false)
}

// CreateIfMissing writes name with data only if no file of that name
// exists, atomically: whoever creates it first wins, and an existing file
// is never replaced. created reports whether this call made it.
func (r Root) CreateIfMissing(name string, data []byte, perm os.FileMode) (created bool, err error) {
	err = r.replace(name, data, perm, true, true)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
}

func (r Root) replace(name string, data []byte, perm os.FileMode, durable, exclusive bool) error {
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
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return &UnsafeError{Path: r.display(name), What: describe(st.Mode)}
		}
		if exclusive {
			return &fs.PathError{Op: "create", Path: r.display(name), Err: fs.ErrExist}
		}
		perm = os.FileMode(st.Mode) & os.ModePerm
	}
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
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", r.display(name), err)
	}
	if err := f.Chmod(perm.Perm()); err != nil {
		return fmt.Errorf("chmod %s: %w", r.display(name), err)
	}
	if durable {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", r.display(name), err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", r.display(name), err)
	}
	if beforeRename != nil {
		beforeRename(r.Path(tmp))
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
	if st, ok, err := lstatAt(dfd, oldBase); err != nil || !ok || st.Mode&unix.S_IFMT != unix.S_IFREG {
		if err == nil && !ok {
			err = fs.ErrNotExist
		}
		if err == nil {
			return &UnsafeError{Path: r.display(oldName), What: describe(st.Mode)}
		}
		return &fs.PathError{Op: "rename", Path: r.display(oldName), Err: err}
	}
	if st, ok, err := lstatAt(dfd, newBase); err != nil {
		return &fs.PathError{Op: "stat", Path: r.display(newName), Err: err}
	} else if ok && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &UnsafeError{Path: r.display(newName), What: describe(st.Mode)}
	}
	if err := unix.Renameat(dfd, oldBase, dfd, newBase); err != nil {
		return &fs.PathError{Op: "rename", Path: r.display(oldName), Err: err}
	}
	return nil
}

// Chmod sets the permission bits of the regular file name below the root.
func (r Root) Chmod(name string, perm os.FileMode) error {
	f, err := r.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", r.display(name), err)
	}
	return nil
}

// AbandonedAge is how old a temporary file must be before a writer that
// holds the lock of its file may take it for abandoned: any live writer
// finishes long before.
const AbandonedAge = 10 * time.Minute

// RemoveStaleTemps deletes the temporary files of name that writers left
// when they died before renaming them: only regular files of name's
// temporary pattern older than [AbandonedAge]. Call it only while holding
// the lock that every writer of name holds while it writes, so that no
// live writer owns them.
func (r Root) RemoveStaleTemps(name string, now time.Time) (int, error) {
	dfd, base, err := r.parent(name, false)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	f := os.NewFile(uintptr(dfd), r.Path(name))
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", r.display(name), err)
	}
	prefix := "." + base + tempMarker
	n := 0
	for _, e := range names {
		if !strings.HasPrefix(e, prefix) {
			continue
		}
		st, ok, err := lstatAt(dfd, e)
		if err != nil || !ok || st.Mode&unix.S_IFMT != unix.S_IFREG {
			continue
		}
		if now.Sub(time.Unix(0, st.Mtim.Nano())) < AbandonedAge {
			continue
		}
		if unix.Unlinkat(dfd, e, 0) == nil {
			n++
		}
	}
	return n, nil
}

// Acquire takes the exclusive lock on the file name below the root
// (created if missing), waiting up to wait; see [Acquire].
func (r Root) Acquire(name string, wait time.Duration) (*Lock, error) {
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	return lockFile(f, r.display(name), wait)
}

// AcquireShared takes a shared lock on the file name below the root
// (created if missing), waiting up to wait for an exclusive holder to let
// go: any number of processes hold it shared at once, none while one
// holds it exclusively (see [Lock.Exclusive]).
func (r Root) AcquireShared(name string, wait time.Duration) (*Lock, error) {
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	l := &Lock{f: f, name: r.display(name)}
	if err := l.flock(unix.LOCK_SH, wait); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// TryAcquire takes the lock on name below the root only if nobody holds
// it; see [TryAcquire].
func (r Root) TryAcquire(name string) (*Lock, bool, error) {
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("open lock: %w", err)
	}
	return tryLockFile(f, r.display(name))
}

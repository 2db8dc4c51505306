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
//
// On Windows, which has no openat, a Root works through an [os.Root] and
// checks (lstat) every component before using it: a symbolic link, a
// junction or any other reparse point below the root is refused, as is
// anything not a directory or regular file, and a name with a backslash
// or a colon (an alternate data stream) is refused before any system
// call. What differs: the check and the use are two steps, so a link made
// between them by a process running beside cairn is followed; os.Root
// still keeps it inside the root. Directories are not synced after a
// rename (Windows cannot open them to sync), and Windows reserved names
// (NUL, COM1, ...) are refused by os.Root.
type Root struct {
	dir string
	// private names the part of the root that is the person's own ("" for
	// none, "." for all of it): see [Root.PrivateUnder].
	private string
}

// NewRoot returns the confined view of dir. dir need not exist yet.
func NewRoot(dir string) Root { return Root{dir: dir} }

// NewPrivateRoot is [NewRoot] of a directory that is the person's own
// (their data and state directories, the pipeline's outputs): see
// [Root.PrivateUnder].
func NewPrivateRoot(dir string) Root { return Root{dir: dir, private: "."} }

// PrivateUnder is r with everything under name (a directory below the
// root, or "." for the root itself) kept to the person who runs cairn:
// every file written or created there is 0600 and every directory
// created 0700 (umask or no umask), and an existing file or directory
// with looser bits, of the person's own, is tightened by the next write.
// This is the one rule for private files (.cairn/local, the personal
// pipeline); [WritePrivate] and [MkdirPrivate] apply it outside a root.
func (r Root) PrivateUnder(name string) Root {
	r.private = name
	return r
}

// isPrivate reports whether name (below the root; "" is the root) is in
// the root's private part.
func (r Root) isPrivate(name string) bool {
	switch r.private {
	case "":
		return false
	case ".":
		return true
	}
	return name == r.private || strings.HasPrefix(name, r.private+"/")
}

// filePerm is the permission a file name is written with: perm, without
// any group or other bit when name is private.
func (r Root) filePerm(name string, perm os.FileMode) os.FileMode {
	if r.isPrivate(name) {
		return perm.Perm() &^ 0o077
	}
	return perm.Perm()
}

// dirPerm is the permission a directory name is created with.
func (r Root) dirPerm(name string) uint32 {
	if r.isPrivate(name) {
		return 0o700
	}
	return 0o755
}

// WritePrivate writes data to path atomically, 0600 in a directory that
// is made 0700 when cairn creates it (see [Root.PrivateUnder]).
func WritePrivate(path string, data []byte) error {
	return NewPrivateRoot(filepath.Dir(path)).WriteAtomic(filepath.Base(path), data, 0o600)
}

// MkdirPrivate creates dir and its missing parents 0700, and tightens dir
// itself to 0700 when it is the person's own with looser bits.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.IsDir() && fi.Mode().Perm()&0o077 != 0 && Owned(dir, fi) {
		return os.Chmod(dir, fi.Mode().Perm()&^0o077)
	}
	return nil
}

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
func describe(mode fs.FileMode) string {
	switch mode.Type() {
	case fs.ModeSymlink:
		return "a symlink"
	case fs.ModeNamedPipe:
		return "a FIFO"
	case fs.ModeDevice, fs.ModeDevice | fs.ModeCharDevice:
		return "a device"
	case fs.ModeSocket:
		return "a socket"
	case fs.ModeDir:
		return "a directory, not a file"
	case 0:
		return "a file, not a directory"
	}
	return "not a regular file"
}

// split checks a slash-separated name and returns its components. Empty
// components, ".", "..", absolute names and NUL bytes are refused, and on
// Windows backslashes and colons.
func split(name string) ([]string, error) {
	if name == "" {
		return nil, nil
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.IndexByte(p, 0) >= 0 || strings.ContainsAny(p, badNameChars) {
			return nil, fmt.Errorf("invalid name %q under a confined directory", name)
		}
	}
	return parts, nil
}

// ReadFile reads the regular file name below the root, refusing one larger
// than max bytes with [ErrTooLarge] before reading it.
func (r Root) ReadFile(name string, max int64) ([]byte, error) {
	f, size, err := r.openCapped(name, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return r.readCapped(f, name, size, max)
}

// openCapped opens the regular file name below the root for reading and
// returns its size, refusing one larger than max bytes with
// [ErrTooLarge].
func (r Root) openCapped(name string, max int64) (*os.File, int64, error) {
	f, err := r.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if fi.Size() > max {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w (%d bytes, the cap is %d)", r.display(name), ErrTooLarge, fi.Size(), max)
	}
	return f, fi.Size(), nil
}

// readCapped reads the open file f, name below the root, of size bytes
// when opened, refusing more than max.
func (r Root) readCapped(f *os.File, name string, size, max int64) ([]byte, error) {
	data := make([]byte, 0, size+1)
	data, err := readAllInto(io.LimitReader(f, max+1), data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.display(name), err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", r.display(name), ErrTooLarge, max)
	}
	return data, nil
}

// MapFile calls fn with the content of the regular file name below the
// root, refusing one larger than max bytes with [ErrTooLarge]. The file is
// mapped rather than read where it can be (see [ReadMapped]): fn must keep
// no part of data, and a fault from a file shortened in place meanwhile
// is returned as an error. Where files cannot be mapped it is read.
func (r Root) MapFile(name string, max int64, fn func(data []byte) error) error {
	f, size, err := r.openCapped(name, max)
	if err != nil {
		return err
	}
	defer f.Close()
	var fnErr error
	err = ReadMapped(f, size, func(data []byte) { fnErr = fn(data) })
	if errors.Is(err, errors.ErrUnsupported) {
		data, err := r.readCapped(f, name, size, max)
		if err != nil {
			return err
		}
		return fn(data)
	}
	if err != nil {
		return err
	}
	return fnErr
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

// DirEntry is one name in a directory below a root, with what lstat says
// of it.
type DirEntry struct {
	Name    string
	Regular bool        // a regular file (not a link, not special)
	Dir     bool        // a real directory
	Mode    fs.FileMode // type and permission bits, for describing anything else
	ModTime time.Time   // modification time
}

// FindUnsafe walks the root and returns every link and special file below
// it (and the root itself when it is one), at most limit of them, as the
// user finds them.
func (r Root) FindUnsafe(limit int) ([]*UnsafeError, error) {
	if _, err := r.IsDir(""); err != nil {
		var ue *UnsafeError
		if errors.As(err, &ue) {
			return []*UnsafeError{ue}, nil
		}
		return nil, err
	}
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

// WriteAtomic replaces the regular file name below the root with data:
// temp file, fsync, rename, fsync of the directory. A link or special file
// in its place is refused, not replaced.
func (r Root) WriteAtomic(name string, data []byte, perm os.FileMode) error {
	return r.replace(name, writeData(data), perm, true, false)
}

// WriteAtomicWith is [Root.WriteAtomic] whose content write writes to the
// temporary file (which it must neither close nor sync), for content
// streamed from another file rather than held in memory. An error from
// write leaves name as it was.
func (r Root) WriteAtomicWith(name string, perm os.FileMode, write func(f *os.File) error) error {
	return r.replace(name, write, perm, true, false)
}

// writeData is the content writer of data.
func writeData(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

// ReplaceFile is [Root.WriteAtomic] without fsync, for disposable local
// state: a crash may lose the new content, never mix it with the old.
func (r Root) ReplaceFile(name string, data []byte, perm os.FileMode) error {
	return r.replace(name, writeData(data), perm, false, false)
}

// CreateIfMissing writes name with data only if no file of that name
// exists, atomically: whoever creates it first wins, and an existing file
// is never replaced. created reports whether this call made it.
func (r Root) CreateIfMissing(name string, data []byte, perm os.FileMode) (created bool, err error) {
	err = r.replace(name, writeData(data), perm, true, true)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	return err == nil, err
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
	if _, err := split(name); err != nil || name == "" {
		return 0, fmt.Errorf("invalid name %q under a confined directory", name)
	}
	dir, base := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	ents, err := r.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	prefix := "." + base + tempMarker
	n := 0
	for _, e := range ents {
		if !e.Regular || !strings.HasPrefix(e.Name, prefix) || now.Sub(e.ModTime) < AbandonedAge {
			continue
		}
		tmp := e.Name
		if dir != "" {
			tmp = dir + "/" + e.Name
		}
		if r.Remove(tmp) == nil {
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
	return lockFile(f, r.display(name), true, wait)
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
	return lockFile(f, r.display(name), false, wait)
}

// TryAcquire takes the exclusive lock on name below the root only if
// nobody holds it; ok is false when someone does.
func (r Root) TryAcquire(name string) (l *Lock, ok bool, err error) {
	f, err := r.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("open lock: %w", err)
	}
	return tryLockFile(f, r.display(name))
}

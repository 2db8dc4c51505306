package toolgate

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/filestat"
)

// store is a project's .cairn as the gate reads it and writes the turn's
// record of edited files: with fsx.Root's safety and none of its imports.
// The .cairn arrives by git pull from whoever pushed last, so nothing in
// it is trusted. Every name is opened through an os.Root, so nothing
// outside the .cairn is reached whatever links it holds; before use, each
// of its components is checked with Lstat, and a link or anything but a
// directory on the way, or anything but a regular file at the end, is
// refused (an error: the full hook, through fsx, reports it). A file is
// opened without blocking (a FIFO cannot hang the hook) and must be the
// file Lstat saw. What it writes (under local/, the person's own) is
// 0600 in directories made 0700; one it finds there with looser bits, or
// not the person's, it leaves to the full hook, which tightens it.
type store struct {
	root *os.Root
}

// errUnsafe: a link, a special file or a file of the wrong kind, or one
// this store leaves to fsx.
var errUnsafe = errors.New("toolgate: not a file the gate uses")

// openStore opens the .cairn directory dir, which os.Lstat described as
// fi (a directory, not a link).
func openStore(dir string, fi fs.FileInfo) (*store, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if st, err := r.Stat("."); err != nil || !os.SameFile(fi, st) {
		r.Close()
		return nil, errUnsafe // replaced since the Lstat
	}
	return &store{root: r}, nil
}

// Close closes the store.
func (s *store) Close() error { return s.root.Close() }

// lstat describes name (slash-separated, below the root) without
// following a link, every directory on the way checked to be one.
func (s *store) lstat(name string) (fs.FileInfo, error) {
	parts := strings.Split(name, "/")
	for i := range parts {
		fi, err := s.root.Lstat(strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, err
		}
		if i == len(parts)-1 {
			return fi, nil
		}
		if !fi.IsDir() {
			return nil, errUnsafe
		}
	}
	return nil, errUnsafe // an empty name
}

// StatID is the identity of the regular file name (fsx.Root.StatID's): a
// missing file's is zero.
func (s *store) StatID(name string) (filestat.FileID, error) {
	fi, err := s.lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return filestat.FileID{}, nil
	}
	if err != nil {
		return filestat.FileID{}, err
	}
	if !fi.Mode().IsRegular() {
		return filestat.FileID{}, errUnsafe
	}
	id, ok := filestat.Of(fi)
	if !ok {
		return filestat.FileID{}, errUnsafe // no stat to read here: fsx's
	}
	return id, nil
}

// open opens the regular file name that Lstat described as fi (nil: one
// it creates, 0600), with flag, without blocking, and checks it is that
// file.
func (s *store) open(name string, fi fs.FileInfo, flag int) (*os.File, fs.FileInfo, error) {
	f, err := s.root.OpenFile(name, flag|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || (fi != nil && !os.SameFile(fi, st)) {
		f.Close()
		return nil, nil, errUnsafe
	}
	return f, st, nil
}

// nothingAnchored reports whether the anchor map anchors nothing to
// paths or command, and the log, whose identity is id, anchors nothing
// there either: the map is current with it (it records id as its
// sources), or, behind it (a pull, a merge, a checkout changed the log
// since the last sync), no line of the log anchors a note to paths
// (see [anchor.UnanchoredAt]) and there is no command (a must-check
// anchored to a command is not looked for in the log). behind reports
// the map behind the log. A map missing, too large, unreadable or not a
// regular file is not.
func (s *store) nothingAnchored(id string, paths []string, command string) (ok, behind bool) {
	f, size, src, ok := s.openMap()
	if !ok {
		return false, false
	}
	defer f.Close()
	hits, err := anchor.LookupAt(f, size, paths, command)
	if err != nil || len(hits) > 0 {
		return false, false
	}
	if src == id {
		return true, false
	}
	return command == "" && s.logUnanchored(paths), true
}

// maxScan caps the log the gate reads: a larger one (some 400k notes)
// goes to the full hook.
const maxScan = 128 << 20

// scanBuffer is the buffer the gate reads the log through: in two halves
// for a log it reads in two parts at once (see [anchor.UnanchoredAt]),
// so the longest line it reads is 256 KB (a longer one goes to the full
// hook).
const scanBuffer = 512 << 10

// logUnanchored reports whether no line of the log anchors a note to
// paths (see [anchor.UnanchoredAt]), reading it through a small buffer. A
// log missing anchors nothing; one larger than maxScan, unreadable or not
// a regular file is not known to.
func (s *store) logUnanchored(paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	fi, err := s.lstat(anchor.Sources[0])
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScan {
		return false
	}
	f, st, err := s.open(anchor.Sources[0], fi, os.O_RDONLY)
	if err != nil || st.Size() > maxScan {
		if f != nil {
			f.Close()
		}
		return false
	}
	defer f.Close()
	// What the file holds past its size now (a write since) is not read:
	// the answer is the log's as of now.
	return anchor.UnanchoredAt(f, st.Size(), make([]byte, scanBuffer), paths)
}

// behind reports whether the anchor map records other log files than id
// (a pull, a merge, a checkout changed the log since the last sync). A
// map missing, too large, unreadable or not a regular file is not: the
// next hook that reads the cache builds it.
func (s *store) behind(id string) bool {
	f, _, src, ok := s.openMap()
	if !ok {
		return false
	}
	f.Close()
	return src != id
}

// openMap opens the anchor map and reads, from its first 4 KB, the
// identity of the log files it was built from (its sources; see
// [anchor.Identity]). ok is false when the map is missing, too large,
// unreadable, not a regular file or not a map; else the caller closes f.
func (s *store) openMap() (f *os.File, size int64, src string, ok bool) {
	fi, err := s.lstat(anchor.File)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > anchor.MaxBytes {
		return nil, 0, "", false
	}
	f, st, err := s.open(anchor.File, fi, os.O_RDONLY)
	if err != nil {
		return nil, 0, "", false
	}
	if st.Size() > anchor.MaxBytes {
		f.Close()
		return nil, 0, "", false
	}
	head := make([]byte, min(st.Size(), 4096))
	n, _ := f.ReadAt(head, 0)
	if src, ok = anchor.SourcesOf(head[:n]); !ok {
		f.Close()
		return nil, 0, "", false
	}
	return f, st.Size(), src, true
}

// lockFile opens the lock file name (creating it if missing), a regular
// file, no link on the way.
func (s *store) lockFile(name string) (*os.File, error) {
	fi, err := s.lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		// O_EXCL: os.Root follows no link when it creates.
		f, _, err := s.open(name, nil, os.O_RDWR|os.O_CREATE|os.O_EXCL)
		return f, err
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errUnsafe
	}
	f, _, err := s.open(name, fi, os.O_RDWR)
	return f, err
}

// OpenFile opens the regular file name below the root for the turn's
// record (anchor.NoteTouched): flag is os.O_* (O_CREATE creates missing
// directories, 0700, and the file, 0600; perm is not used). Every
// directory on the way and the file, when they exist, must be the
// person's own with no group or other bits.
func (s *store) OpenFile(name string, flag int, _ os.FileMode) (*os.File, error) {
	parts := strings.Split(name, "/")
	for i := range len(parts) - 1 {
		d := strings.Join(parts[:i+1], "/")
		fi, err := s.root.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0 {
			if err := s.root.Mkdir(d, 0o700); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() || !s.private(d, fi) {
			return nil, errUnsafe
		}
	}
	fi, err := s.root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0 {
		// O_EXCL: os.Root follows no link when it creates.
		f, _, err := s.open(name, nil, flag|os.O_EXCL)
		return f, err
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || !s.private(name, fi) {
		return nil, errUnsafe
	}
	f, _, err := s.open(name, fi, flag&^os.O_CREATE)
	return f, err
}

// private reports whether name, which Lstat described as fi, is the
// person's own with no group or other bits (what fsx's private part
// keeps).
func (s *store) private(name string, fi fs.FileInfo) bool {
	return fi.Mode().Perm()&0o077 == 0 && owned(s.root.Name()+string(os.PathSeparator)+name, fi)
}

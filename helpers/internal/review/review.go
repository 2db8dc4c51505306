// Package review owns what cairn diff and cairn check say of a change:
// the knowledge change between two states of the log (the diff), and the
// team's notes anchored to the files a change touches, with those that
// may be stale (the check, by prcheck's rules). Git's history, the work
// tree and the log as it is now are read through [Sources], so both run
// on what a test gives them; [Open] gives the real ones. It writes both
// for people and as pull-request comments (redacted, under GitHub's size).
package review

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// Git is what the diff and the check read of a repository (a
// [*gitx.Repo]).
type Git interface {
	// Resolve is the commit a revision names.
	Resolve(rev string) (string, error)
	// MergeBase is the best common ancestor of two commits.
	MergeBase(a, b string) (string, error)
	// DefaultBranch is origin/HEAD's branch, else main or master ("" for
	// none).
	DefaultBranch() string
	// ChangedSince is what changed from commit base to the work tree.
	ChangedSince(base string) ([]gitx.FileChange, error)
	// FileAt is a file of commit id (a path from the work tree's root),
	// unless it is over max bytes; ok is false when it is not there.
	FileAt(id, path string, max int64) (data []byte, ok bool, err error)
}

// Tree is the work tree as the check reads it (an [*os.Root]): links are
// not followed.
type Tree interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// Sources are what the diff and the check read.
type Sources struct {
	Git  Git
	Tree Tree // the work tree, from its root
	// Dir is .cairn's path from the work tree's root, Prefix the
	// project's ("" at the root); both slash-separated.
	Dir, Prefix string
	// Log reads the log and its archive as they are now.
	Log func() ([]knowledge.Record, error)
	// LogData reads the bytes of the log and its archive as they are now
	// (nil for a missing file), for the diff to parse only the lines
	// that changed; without it the diff reads Log.
	LogData func() (log, archive []byte, err error)
	// OpenLog opens the log (knowledge.LogName) or its archive
	// (knowledge.ArchiveName) as it is now, for reading; a missing file
	// is nil and no error. A [DiffMemo] reads the working tree's files
	// through it, in pieces, comparing them with the copies it keeps
	// (nil: it hashes what LogData reads).
	OpenLog func(name string) (io.ReadCloser, error)

	memo *DiffMemo // remembers the diff's last answer
}

// ErrNotGit is the error of a diff or a check outside a git work tree.
var ErrNotGit = errors.New("not a git repository")

// Open gives the sources of project p: its repository, its work tree and
// its log; close releases the work tree. Outside a git work tree the
// error is [ErrNotGit].
func Open(p *project.Project) (src Sources, close func(), err error) {
	if !p.IsGit {
		return Sources{}, nil, ErrNotGit
	}
	repo, err := gitx.Open(p.Root)
	if err != nil {
		return Sources{}, nil, err
	}
	prefix, err := filepath.Rel(repo.Root(), p.Root)
	if err != nil {
		return Sources{}, nil, err
	}
	dir, err := filepath.Rel(repo.Root(), p.Store.Dir)
	if err != nil {
		return Sources{}, nil, err
	}
	tree, err := os.OpenRoot(repo.Root())
	if err != nil {
		return Sources{}, nil, err
	}
	src = Sources{
		Git: repo, Tree: tree,
		Dir: filepath.ToSlash(dir), Prefix: strings.TrimPrefix(filepath.ToSlash(prefix), "."),
		Log: func() ([]knowledge.Record, error) {
			recs, _, err := p.Store.ReadAll(true)
			return recs, err
		},
		LogData: func() (log, archive []byte, err error) {
			if log, err = p.Store.ReadLog(); err != nil {
				return nil, nil, err
			}
			archive, err = p.Store.ReadArchive()
			return log, archive, err
		},
		OpenLog: func(name string) (io.ReadCloser, error) {
			f, err := p.Store.Root().OpenFile(name, os.O_RDONLY, 0)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			return f, nil
		},
	}
	return src, func() { tree.Close() }, nil
}

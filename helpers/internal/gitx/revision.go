package gitx

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Errors of reading a revision.
var (
	// ErrNoRevision: the revision names no commit of the repository.
	ErrNoRevision = errors.New("unknown revision")
	// ErrTooLarge: a file at a revision is over the size asked for.
	ErrTooLarge = errors.New("file too large")
)

// Resolve returns the commit id a revision names (a branch, a tag,
// HEAD, HEAD~2, origin/main, an id). The revision is the person's own,
// from the command line: never pass one read from the log here.
func (g *Repo) Resolve(rev string) (string, error) {
	h, err := g.r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("%w %q: %v", ErrNoRevision, rev, err)
	}
	if _, err := g.r.CommitObject(*h); err != nil {
		return "", fmt.Errorf("%w %q: not a commit", ErrNoRevision, rev)
	}
	return h.String(), nil
}

// MergeBase is the best common ancestor of commits a and b (ids from
// [Repo.Resolve]): where a pull request of b onto a branched off.
func (g *Repo) MergeBase(a, b string) (string, error) {
	ca, err := g.r.CommitObject(plumbing.NewHash(a))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", a, err)
	}
	cb, err := g.r.CommitObject(plumbing.NewHash(b))
	if err != nil {
		return "", fmt.Errorf("read commit %s: %w", b, err)
	}
	bases, err := ca.MergeBase(cb)
	if err != nil {
		return "", fmt.Errorf("merge base of %s and %s: %w", a, b, err)
	}
	if len(bases) == 0 {
		return "", fmt.Errorf("%s and %s have no common ancestor", a, b)
	}
	return bases[0].Hash.String(), nil
}

// FileAt reads the file at path (slash-separated, from the work tree's
// root) in commit id, refusing one over max bytes; ok is false when the
// commit has no such file.
func (g *Repo) FileAt(id, path string, max int64) (data []byte, ok bool, err error) {
	c, err := g.r.CommitObject(plumbing.NewHash(id))
	if err != nil {
		return nil, false, fmt.Errorf("read commit %s: %w", id, err)
	}
	f, err := c.File(path)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, id, err)
	}
	if !f.Mode.IsFile() || f.Mode == filemode.Symlink { // a link's target is not the log
		return nil, false, nil
	}
	if f.Size > max {
		return nil, false, fmt.Errorf("%s at %s: %w (%d bytes, at most %d)", path, id, ErrTooLarge, f.Size, max)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, id, err)
	}
	defer rd.Close()
	data, err = io.ReadAll(io.LimitReader(rd, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s at %s: %w", path, id, err)
	}
	return data, true, nil
}

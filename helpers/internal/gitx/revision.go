package gitx

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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

// Blob is a regular file of a commit: its blob's id and size.
type Blob struct {
	ID   string
	Size int64
}

// BlobsAt returns those of paths (slash-separated, from the work tree's
// root) that commit id (an id from [Repo.Resolve]) holds as regular files,
// by path, with their blob ids and sizes: what `git ls-tree` says, with
// the git binary. A link, a directory or a submodule there is left out,
// as [Repo.FileAt] leaves it. Nothing is read of the files.
func (g *Repo) BlobsAt(id string, paths ...string) (map[string]Blob, error) {
	if !IsObjectID(id) {
		return nil, fmt.Errorf("list files of %q: not an object id", id)
	}
	out, err := runGitEnv(g.root, nil, []string{"GIT_LITERAL_PATHSPECS=1"},
		append([]string{"--no-replace-objects", "ls-tree", "-z", "-l", "--full-tree", id, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	return parseLsTree(out)
}

// parseLsTree reads `git ls-tree -z -l`: MODE SP TYPE SP ID SP+ SIZE TAB
// PATH NUL, each entry. It keeps the regular files.
func parseLsTree(out []byte) (map[string]Blob, error) {
	blobs := map[string]Blob{}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, fmt.Errorf("git ls-tree: unexpected output %q", rec)
		}
		if f[1] != "blob" || f[0] == "120000" { // a link's target is not the file
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil || !IsObjectID(f[2]) {
			return nil, fmt.Errorf("git ls-tree: unexpected output %q", rec)
		}
		blobs[path] = Blob{ID: f[2], Size: size}
	}
	return blobs, nil
}

// ReadBlob reads blob b (from [Repo.BlobsAt]) with the git binary (`git
// cat-file blob`: its bytes as committed, no filter applied), refusing one
// over max bytes.
func (g *Repo) ReadBlob(b Blob, max int64) ([]byte, error) {
	if !IsObjectID(b.ID) {
		return nil, fmt.Errorf("read blob %q: not an object id", b.ID)
	}
	if b.Size > max {
		return nil, fmt.Errorf("blob %s: %w (%d bytes, at most %d)", b.ID, ErrTooLarge, b.Size, max)
	}
	var buf bytes.Buffer
	buf.Grow(int(b.Size) + bytes.MinRead)
	out, err := runGitEnv(g.root, &buf, nil, "--no-replace-objects", "cat-file", "blob", b.ID)
	if err != nil {
		return nil, err
	}
	if int64(len(out)) > max {
		return nil, fmt.Errorf("blob %s: %w (%d bytes, at most %d)", b.ID, ErrTooLarge, len(out), max)
	}
	return out, nil
}

// BlobID is the id git gives data as a blob, in the hash of the object id
// like: SHA-256 for 64 hex digits, else SHA-1.
func BlobID(data []byte, like string) string {
	h := sha1.New()
	if len(like) == 64 {
		h = sha256.New()
	}
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Package gitx reads what cairn needs from a git repository beyond what
// package gitmeta reads from .git directly: recent commits and the files
// they touched, files at a revision, merge bases. It reads with go-git,
// except where the git binary does the job as git itself does, or faster:
// its one write, [Add] (git add, for cairn resolve), attributes, the files
// a range changed with renames detected ([Repo.ChangedSince], for cairn
// check), the recent commits of a session's start ([RecentCommits]), and
// a commit's files by blob id and the blobs themselves ([Repo.BlobsAt],
// [Repo.ReadBlob], for cairn diff: go-git copies a blob whole in memory
// before it reads it). It never computes the worktree status with go-git
// (seconds on a big repository). It is the only package that imports
// go-git.
package gitx

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is an open repository.
type Repo struct {
	r    *git.Repository
	root string
}

// Open opens the repository whose work tree is at or above dir. Linked
// worktrees are supported.
func Open(dir string) (*Repo, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s: %w", dir, gitmeta.ErrNotARepo)
		}
		return nil, fmt.Errorf("open repository: %w", err)
	}
	root := dir
	if wt, err := r.Worktree(); err == nil {
		root = wt.Filesystem.Root()
	}
	return &Repo{r: r, root: root}, nil
}

// Root is the top of the work tree.
func (g *Repo) Root() string { return g.root }

// Commit is a recent commit's subject and the files it changed.
type Commit struct {
	Hash    string
	Subject string
	Files   []string
}

// RecentCommits returns up to n commits of the work tree at root, newest
// first along HEAD's first parents, with the files each changed against
// its first parent (every file, for a root commit), at most maxFiles per
// commit; none in a repository without commits. The session start reads
// it in every session: it runs `git log`, which reads packed history
// several times faster than go-git (docs/ARCHITECTURE.md, "go-git or the
// git binary").
func RecentCommits(root string, n, maxFiles int) ([]Commit, error) {
	out, err := runGit(root, "log", "-n", strconv.Itoa(n), "--first-parent", "--diff-merges=first-parent", "--root",
		"--no-renames", "--no-color", "--no-show-signature", "--name-only", "-z", "--format=%x1e%H%x1f%s", "HEAD", "--")
	if err != nil {
		if gitmeta.Read(root).Head == "" {
			return nil, nil // no commits yet
		}
		return nil, err
	}
	return parseLog(out, maxFiles), nil
}

// parseLog reads RecentCommits' `git log` output: per commit, a record
// separator, the hash, a unit separator, the subject and a NUL, then a
// newline and each file NUL-terminated. A record whose hash is not an
// object id (a subject holding a separator) is dropped.
func parseLog(out []byte, maxFiles int) []Commit {
	var commits []Commit
	for rec := range strings.SplitSeq(string(out), "\x1e") {
		hash, rest, ok := strings.Cut(rec, "\x1f")
		if !ok || !IsObjectID(hash) || len(hash) < 7 {
			continue
		}
		subject, files, _ := strings.Cut(rest, "\x00")
		c := Commit{Hash: hash[:7], Subject: strings.TrimSpace(subject)}
		for f := range strings.SplitSeq(strings.TrimLeft(files, "\n"), "\x00") {
			if f != "" && len(c.Files) < maxFiles {
				c.Files = append(c.Files, f)
			}
		}
		commits = append(commits, c)
	}
	return commits
}

// TrackedFile is a file in the repository's index (what `git ls-files`
// lists), with the hash of its staged content.
type TrackedFile struct {
	Path string // slash-separated, relative to the work tree
	Hash string // hex object id
}

// Tracked lists the files in the index.
func (g *Repo) Tracked() ([]TrackedFile, error) {
	idx, err := g.r.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read git index: %w", err)
	}
	out := make([]TrackedFile, 0, len(idx.Entries))
	for _, e := range idx.Entries {
		out = append(out, TrackedFile{Path: e.Name, Hash: e.Hash.String()})
	}
	return out, nil
}

// HashesAt returns, for each of paths that exists in commit rev (a full or
// abbreviated hash, or any revision git understands), the hex id of its
// content there.
//
// rev comes from a log line anyone may have written, so it must look like
// an object id (4 to 64 hex digits) before anything resolves it: a
// revision expression such as HEAD^{/text} would walk the whole history.
func (g *Repo) HashesAt(rev string, paths []string) (map[string]string, error) {
	if !IsObjectID(rev) {
		return nil, fmt.Errorf("resolve %q: not an object id", rev)
	}
	h, err := g.r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", rev, err)
	}
	c, err := g.r.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", rev, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", rev, err)
	}
	out := map[string]string{}
	for _, p := range paths {
		if e, err := tree.FindEntry(p); err == nil {
			out[p] = e.Hash.String()
		}
	}
	return out, nil
}

// IsObjectID reports whether s looks like a full or abbreviated git object
// id: 4 to 64 hex digits (SHA-1 or SHA-256), lower or upper case.
func IsObjectID(s string) bool {
	if len(s) < 4 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// HeadFile returns the content of path (slash-separated, relative to the
// work tree) in the HEAD commit, refusing one larger than max bytes; ok is
// false when there is no commit yet or HEAD's tree has no such file.
func (g *Repo) HeadFile(path string, max int64) (data []byte, ok bool, err error) {
	head, err := g.r.Head()
	if err != nil {
		return nil, false, nil // no commits yet
	}
	c, err := g.r.CommitObject(head.Hash())
	if err != nil {
		return nil, false, fmt.Errorf("read HEAD commit: %w", err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, false, fmt.Errorf("read tree of HEAD: %w", err)
	}
	f, err := tree.File(path)
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, object.ErrEntryNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s at HEAD: %w", path, err)
	}
	if f.Size > max {
		return nil, false, fmt.Errorf("%s at HEAD is %d bytes, over the cap of %d", path, f.Size, max)
	}
	rd, err := f.Reader()
	if err != nil {
		return nil, false, fmt.Errorf("read %s at HEAD: %w", path, err)
	}
	defer rd.Close()
	data, err = io.ReadAll(io.LimitReader(rd, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s at HEAD: %w", path, err)
	}
	return data, true, nil
}

// HasHead reports whether the repository has a commit at HEAD.
func (g *Repo) HasHead() bool {
	_, err := g.r.Head()
	return err == nil
}

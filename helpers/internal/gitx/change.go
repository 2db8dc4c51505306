package gitx

import (
	"fmt"
	"strings"
)

// How a file changed between two states, as git's --name-status says it.
const (
	ChangeAdded    = "added"
	ChangeModified = "modified"
	ChangeDeleted  = "deleted"
	ChangeRenamed  = "renamed"
	ChangeCopied   = "copied"
)

// FileChange is one file a range changed. Paths are slash-separated, from
// the work tree's root; From is empty for an added file, To for a deleted
// one, and they differ for a renamed one.
type FileChange struct {
	Kind string `json:"kind"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// ChangedSince lists the tracked files that differ between commit base
// (an id from [Repo.Resolve]) and the working tree, renames detected: what
// `git diff --name-status -M base` says. It runs the git binary, which
// compares the work tree with the index's cached stat data instead of
// hashing every file as go-git's status does. Files git does not track
// are not listed.
func (g *Repo) ChangedSince(base string) ([]FileChange, error) {
	if !IsObjectID(base) {
		return nil, fmt.Errorf("changed files since %q: not an object id", base)
	}
	out, err := runGit(g.root, "diff", "--name-status", "-z", "-M", "--no-ext-diff", base, "--")
	if err != nil {
		return nil, err
	}
	return parseNameStatus(out)
}

// parseNameStatus reads `git diff --name-status -z`: a status (A, M, D,
// T, R<score>, C<score>, U), NUL, a path, NUL, and for R and C a second
// path, NUL.
func parseNameStatus(out []byte) ([]FileChange, error) {
	fields := strings.Split(string(out), "\x00")
	if n := len(fields); n > 0 && fields[n-1] == "" {
		fields = fields[:n-1]
	}
	var changes []FileChange
	for i := 0; i < len(fields); {
		status := fields[i]
		if status == "" || i+1 >= len(fields) {
			return nil, fmt.Errorf("git diff: unexpected output %q", out)
		}
		p := fields[i+1]
		i += 2
		switch status[0] {
		case 'A':
			changes = append(changes, FileChange{Kind: ChangeAdded, To: p})
		case 'D':
			changes = append(changes, FileChange{Kind: ChangeDeleted, From: p})
		case 'R', 'C':
			if i >= len(fields) {
				return nil, fmt.Errorf("git diff: unexpected output %q", out)
			}
			kind := ChangeRenamed
			if status[0] == 'C' {
				kind = ChangeCopied
			}
			changes = append(changes, FileChange{Kind: kind, From: p, To: fields[i]})
			i++
		default: // M, T (type change), U (unmerged), X
			changes = append(changes, FileChange{Kind: ChangeModified, From: p, To: p})
		}
	}
	return changes, nil
}

// DefaultBranch is the revision of the branch pull requests merge into:
// origin/HEAD when the clone knows it, else the first of main and master
// that exists; "" when none does.
func (g *Repo) DefaultBranch() string {
	for _, rev := range []string{"origin/HEAD", "main", "master", "origin/main", "origin/master"} {
		if _, err := g.Resolve(rev); err == nil {
			return rev
		}
	}
	return ""
}

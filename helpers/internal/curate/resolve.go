package curate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// ErrNotStaged: the log was resolved but git add failed; the files stay
// resolved and the person stages them.
var ErrNotStaged = errors.New("resolved, but not staged")

// Resolved is what resolve did with one file, staging included.
type Resolved struct {
	knowledge.ResolveStats
	Staged bool
	Note   string // why a resolved file was not staged
}

// Path is the file as git and the person name it, from the project root.
func (f *Resolved) Path() string { return knowledge.DirName + "/" + f.Name }

// Resolve repairs the conflict markers a merge left in the log and the
// archive (see knowledge.Store.Resolve) and, in a git repository, stages
// each file it repaired that git tracks or that the merge left unmerged.
// A failure of git wraps ErrNotStaged and names the files to stage by
// hand; the files stay resolved.
func Resolve(p *project.Project) (knowledge.ResolveResult, []*Resolved, error) {
	res, err := p.Store.Resolve()
	if err != nil {
		return res, nil, err
	}
	files := []*Resolved{{ResolveStats: res.Log}, {ResolveStats: res.Archive}}
	return res, files, stage(p, files)
}

func stage(p *project.Project, files []*Resolved) error {
	if !p.IsGit {
		return nil
	}
	var paths []string
	var todo []*Resolved
	for _, f := range files {
		if !f.Resolved {
			continue
		}
		in, err := gitx.InIndex(p.Root, f.Path())
		if err != nil {
			f.Note = "not staged: " + err.Error()
			return fmt.Errorf("%w: %s: %w (stage it yourself: git add %s)", ErrNotStaged, f.Path(), err, f.Path())
		}
		if !in {
			f.Note = "not staged: git does not track it"
			continue
		}
		paths = append(paths, f.Path())
		todo = append(todo, f)
	}
	if len(paths) == 0 {
		return nil
	}
	if err := gitx.Add(p.Root, paths...); err != nil {
		for _, f := range todo {
			f.Note = "not staged: git add failed"
		}
		return fmt.Errorf("%w: %w (stage it yourself: git add %s)", ErrNotStaged, err, strings.Join(paths, " "))
	}
	for _, f := range todo {
		f.Staged = true
	}
	return nil
}

// Package project is the project cairn works on, found by package
// projroot's rule, and holds what every part of cairn does with it beyond
// the log itself: cairn's own log (.cairn/cache/cairn.log), the hooks'
// heartbeat and an entry's provenance. It imports neither
// SQLite nor go-git (the cache is package index's, with [index.OpenSynced]),
// so the capture hook's fast path can use it.
package project

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/projroot"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// Project is the repository cairn works on.
type Project struct {
	Root  string // the work tree's root (or the directory holding .cairn)
	Store *knowledge.Store
	IsGit bool
}

// Errors of finding a project.
var (
	// ErrNotFound: no git repository and no .cairn at or above the
	// directory.
	ErrNotFound = errors.New("not a git repository")
	// ErrNoDir: the project directory given does not exist.
	ErrNoDir = errors.New("does not exist")
	// ErrNotProvisioned: the project has no .cairn yet.
	ErrNotProvisioned = errors.New("no " + knowledge.DirName)
)

// Find resolves the project a command works on by [projroot]'s rule:
// explicit (--dir, or CAIRN_DIR, which the CLI folds into it) when given,
// relative to dir, and then it must be a directory; else the git
// repository of dir; else the nearest directory above dir that holds a
// .cairn.
func Find(dir, explicit string) (*Project, error) {
	r := projroot.Resolve(projroot.Request{Flag: explicit, Dir: dir})
	if r.Explicit {
		if fi, err := os.Stat(r.Dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("project directory %s %w", r.Dir, ErrNoDir)
		}
	}
	if !r.Found {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, dir)
	}
	return New(r.Dir, r.IsGit), nil
}

// Locate is the project of a hook, which must never fail: [projroot]'s
// rule, and when it finds none the directory searched (where nothing is
// provisioned, so the hook does nothing).
func Locate(r projroot.Request) *Project {
	root := projroot.Resolve(r)
	return New(root.Dir, root.IsGit)
}

// New is the project at root.
func New(root string, isGit bool) *Project {
	return &Project{Root: root, Store: knowledge.Open(root), IsGit: isGit}
}

// RequireStore fails, wrapping ErrNotProvisioned, when the project has no
// .cairn yet.
func (p *Project) RequireStore() error {
	if !p.Store.Exists() {
		return fmt.Errorf("%w in %s", ErrNotProvisioned, p.Root)
	}
	return nil
}

// UserName is the git user.name of the project's repository, if any.
func (p *Project) UserName() string {
	if !p.IsGit {
		return ""
	}
	return gitmeta.Read(p.Root).UserName
}

// LogFile is cairn's own log, under .cairn.
const LogFile = knowledge.CacheDir + "/cairn.log"

// OpenLog opens .cairn/cache/cairn.log for appending (never through a
// link: a committed cairn.log pointing at ~/.gitconfig is refused).
func (p *Project) OpenLog() (*os.File, error) {
	return p.Store.Root().OpenFile(LogFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
}

// Log appends one time-stamped line to .cairn/cache/cairn.log and reports
// whether it could; it writes nothing without a .cairn directory.
func (p *Project) Log(msg string) bool {
	if !p.Store.Exists() {
		return false
	}
	f, err := p.OpenLog()
	if err != nil {
		return false
	}
	_, werr := f.WriteString(LogLine(msg))
	cerr := f.Close()
	return werr == nil && cerr == nil
}

// LogLine is msg as one line of cairn.log: a UTC time stamp, the message
// with its line breaks folded.
func LogLine(msg string) string {
	return when.Machine(time.Now()) + " " + strings.ReplaceAll(msg, "\n", " ") + "\n"
}

// heartbeatFile records, on this machine, the last hook that ran in the
// project and when: doctor's proof that the wiring works.
const heartbeatFile = knowledge.LocalDir + "/heartbeat.json"

// Heartbeat is the last hook that ran in the project on this machine.
type Heartbeat struct {
	Event string `json:"event"`
	Time  string `json:"time"`
}

// Beat records that a hook for event ran now.
func (p *Project) Beat(event string) error {
	b, _ := json.Marshal(Heartbeat{Event: event, Time: when.Machine(time.Now())})
	return p.Store.Root().ReplaceFile(heartbeatFile, b, 0o644)
}

// LastBeat reads the last heartbeat and when it was; ok is false when no
// hook has run yet or the record is unreadable.
func (p *Project) LastBeat() (hb Heartbeat, when time.Time, ok bool) {
	data, err := p.Store.ReadFile(heartbeatFile, knowledge.MaxConfigBytes)
	if err != nil || data == nil || json.Unmarshal(data, &hb) != nil {
		return hb, when, false
	}
	when, err = time.Parse(time.RFC3339, hb.Time)
	return hb, when, err == nil
}

// Provenance fills in when, who and where: ts, author (git user.name),
// branch, short HEAD, and the files the content names that exist in the
// repository (case kept, no path outside its root, none reached through a
// link that leads out of it), and the directories it names with a slash
// ("db/migrations/"); then the state of each anchored file as it is on
// disk now (see [Project.Anchor]).
func (p *Project) Provenance(e *knowledge.Entry, now time.Time) {
	if e.TS == 0 {
		e.TS = now.Unix()
	}
	if p.IsGit {
		q := gitmeta.Read(p.Root)
		if e.Author == "" {
			e.Author = q.UserName
		}
		if e.Branch == "" {
			e.Branch = q.Branch
		}
		if e.Commit == "" {
			e.Commit = q.Head
		}
	}
	seen := map[string]bool{}
	for _, f := range e.Files {
		seen[f] = true
	}
	for _, f := range knowledge.MentionedPaths(e.Content) {
		dir := strings.HasSuffix(f, "/")
		f = strings.TrimSuffix(f, "/")
		if len(e.Files) >= knowledge.MaxFiles {
			break
		}
		if seen[f] {
			continue
		}
		if fi, ok := p.InProject(f); ok && (!fi.IsDir() || dir || strings.Contains(f, "/")) {
			e.Files = append(e.Files, f)
			seen[f] = true
		}
	}
	p.stamp(e, e.Files)
}

// Anchor adds files (anchors' paths, as an agent's tool calls named them)
// to e's files when they exist inside the project, up to
// [knowledge.MaxFiles], and records the state each file is in now: the
// note is written against the file as the turn left it, not as HEAD has
// it, so a note committed with its code is not "possibly outdated".
func (p *Project) Anchor(e *knowledge.Entry, files []string) {
	var added []string
	for _, f := range files {
		if len(e.Files) >= knowledge.MaxFiles {
			break
		}
		if slices.Contains(e.Files, f) {
			continue
		}
		if _, ok := p.InProject(f); ok {
			e.Files = append(e.Files, f)
			added = append(added, f)
		}
	}
	p.stamp(e, added)
}

// Restamp records the state of all of e's anchored files as they are on
// disk now, forgetting what it recorded before: e was rewritten against
// them (cairn edit).
func (p *Project) Restamp(e *knowledge.Entry) {
	e.Blobs = nil
	p.stamp(e, e.Files)
}

// stamp records in e the git blob id of each of files (e's anchors) that
// is a regular file inside the project's git work tree, as it is on disk
// now (see [knowledge.Entry.Blobs]). Directories have none.
func (p *Project) stamp(e *knowledge.Entry, files []string) {
	if !p.IsGit {
		return
	}
	for _, f := range files {
		if fi, ok := p.InProject(f); !ok || !fi.Mode().IsRegular() {
			continue
		}
		if id, ok := gitmeta.BlobFile(filepath.Join(p.Root, filepath.FromSlash(f))); ok {
			e.SetBlob(f, id)
		}
	}
}

// InProject stats rel, a relative path, inside the project: ok is false
// when it does not exist, climbs out, or is reached through a link that
// leads out of the project.
func (p *Project) InProject(rel string) (fs.FileInfo, bool) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, false
	}
	full := filepath.Join(p.Root, filepath.FromSlash(rel))
	fi, err := os.Stat(full)
	if err != nil {
		return nil, false
	}
	realRoot, err := filepath.EvalSymlinks(p.Root)
	if err != nil {
		return nil, false
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil, false
	}
	if r, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(r) {
		return nil, false
	}
	return fi, true
}

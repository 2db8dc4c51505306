package capture

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/gitmeta"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// MaxPerEvent caps how many entries one hook event (one reply, one
// command) may add: an agent records a handful; thousands are a runaway
// or an attack, and would each cost a rewrite of the log.
const MaxPerEvent = 50

// Entries turns captured items into log entries: keys derived, the session
// and source noted. Empty items are dropped. Secrets are redacted where
// every entry is written, by knowledge.Store.Insert.
func Entries(items []Item, session, source string) []knowledge.Entry {
	var out []knowledge.Entry
	for _, it := range items {
		// As captured: the log's writer redacts it before it folds it.
		content := it.Content
		if knowledge.CleanContent(content) == "" {
			continue
		}
		e := knowledge.Entry{
			Type:    it.Type,
			Content: content,
			Source:  source,
			Bead:    it.Bead,
			Session: session,
		}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		out = append(out, e)
	}
	return out
}

// Provenance fills in when, who and where: ts, author (git user.name),
// branch, short HEAD, and the files the content names that exist in the
// repository (case kept, no path outside root, none reached through a
// link that leads out of it), and the directories it names with a slash
// ("db/migrations/").
func Provenance(root string, isGit bool, e *knowledge.Entry, now time.Time) {
	if e.TS == 0 {
		e.TS = now.Unix()
	}
	if isGit {
		q := gitmeta.Read(root)
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
		if fi, ok := InProject(root, f); ok && (!fi.IsDir() || dir || strings.Contains(f, "/")) {
			e.Files = append(e.Files, f)
			seen[f] = true
		}
	}
}

// Anchor adds files (project-relative, as an agent's tool calls named
// them) to e's files when they exist inside the project at root, up to
// [knowledge.MaxFiles].
func Anchor(root string, e *knowledge.Entry, files []string) {
	for _, f := range files {
		if len(e.Files) >= knowledge.MaxFiles {
			return
		}
		if slices.Contains(e.Files, f) {
			continue
		}
		if _, ok := InProject(root, f); ok {
			e.Files = append(e.Files, f)
		}
	}
}

// InProject stats rel, a relative path, inside the project at root: ok is
// false when it does not exist, climbs out, or is reached through a link
// that leads out of the project.
func InProject(root, rel string) (fs.FileInfo, bool) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, false
	}
	full := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Stat(full)
	if err != nil {
		return nil, false
	}
	realRoot, err := filepath.EvalSymlinks(root)
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

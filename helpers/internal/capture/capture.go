package capture

import (
	"os"
	"path/filepath"
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
// repository (case kept, no path outside root).
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
		if len(e.Files) >= knowledge.MaxFiles {
			break
		}
		if seen[f] || !filepath.IsLocal(f) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, f)); err == nil && !fi.IsDir() {
			e.Files = append(e.Files, f)
			seen[f] = true
		}
	}
}

// Package prcheck owns the rules of cairn check: which of the team's
// entries a change touches (an entry anchors the files its files field
// names; a directory anchors everything under it) and which of those may
// be stale after it (an anchored file deleted or renamed, an anchored
// directory gone, a symbol the entry names gone from the anchored files
// that held it). It judges what it is given: the changed files, the
// entries and readers of a file before and after; git and the log are
// read by its caller. Symbols are found by the working set's own rule
// (sanitize's anchors), with the CamelCase names it leaves to a check
// (sanitize.Identifiers). An anchor's path is read by anchor.Clean.
package prcheck

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/sanitize"
)

// MaxFileBytes caps the version of a file read for its symbols; a larger
// one is not read, and says nothing about them.
const MaxFileBytes = 1 << 20

// Input is what a check judges.
type Input struct {
	// Prefix is the project's directory from the repository's root ("" at
	// the root): an entry's files are the project's paths, changes the
	// repository's.
	Prefix  string
	Changes []gitx.FileChange
	Entries []knowledge.Entry // the active entries
	// Before reads a file at the base of the range, After one now; ok is
	// false for a file that is not there (or over MaxFileBytes).
	Before, After func(path string) (data []byte, ok bool)
	// Exists reports whether a path (a file or a directory) is there now.
	Exists func(path string) bool
}

// Finding is an entry the change touches.
type Finding struct {
	Entry knowledge.Entry
	// Files are the changed files it anchors, "old -> new" for a rename.
	Files []string
	// Reasons say why it may be stale; none when it need not be.
	Reasons []string
}

// Stale reports whether the entry may be stale after the change.
func (f Finding) Stale() bool { return len(f.Reasons) > 0 }

// Check returns the entries the change touches, those that may be stale
// first, each group by key.
func Check(in Input) []Finding {
	var out []Finding
	for _, e := range in.Entries {
		if f, ok := checkEntry(in, e); ok {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Stale() != out[j].Stale() {
			return out[i].Stale()
		}
		return out[i].Entry.Key < out[j].Entry.Key
	})
	return out
}

// checkEntry judges one entry; ok is false when the change touches none
// of its anchors.
func checkEntry(in Input, e knowledge.Entry) (f Finding, ok bool) {
	f.Entry = e
	var touched []gitx.FileChange // each change once, in the change's order
	for _, a := range anchorPaths(in.Prefix, e.Files) {
		var mine []gitx.FileChange
		for _, c := range in.Changes {
			if under(c.From, a) || under(c.To, a) {
				mine = append(mine, c)
				if !slices.Contains(touched, c) {
					touched = append(touched, c)
				}
			}
		}
		if len(mine) > 0 {
			f.Reasons = append(f.Reasons, anchorGone(in, a, mine)...)
		}
	}
	if len(touched) == 0 {
		return f, false
	}
	for _, c := range touched {
		f.Files = append(f.Files, changeName(c))
	}
	f.Reasons = append(f.Reasons, symbolsGone(in, e, touched)...)
	return f, true
}

// anchorPaths are an entry's files as paths of the repository; a path
// that cannot be one (absolute, or leaving the project) anchors nothing.
func anchorPaths(prefix string, files []string) []string {
	var out []string
	for _, f := range files {
		f, ok := anchor.Clean(f)
		if !ok {
			continue
		}
		p := path.Join(prefix, f)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// under reports whether p is anchor a or lies in directory a.
func under(p, a string) bool {
	return p != "" && (p == a || strings.HasPrefix(p, a+"/"))
}

// anchorGone says why anchor a no longer names what it did, given the
// changes under it: the file was deleted or renamed, or the directory is
// gone.
func anchorGone(in Input, a string, changes []gitx.FileChange) []string {
	for _, c := range changes {
		if c.From != a {
			continue
		}
		switch c.Kind {
		case gitx.ChangeDeleted:
			return []string{a + " was deleted"}
		case gitx.ChangeRenamed:
			return []string{a + " was renamed to " + c.To}
		}
		return nil // the file itself is still there
	}
	for _, c := range changes {
		if under(c.To, a) {
			return nil // something is still there
		}
	}
	if in.Exists != nil && !in.Exists(a) {
		return []string{a + "/ is gone (its files were deleted or moved)"}
	}
	return nil
}

// symbolsGone names the symbols of the entry that an anchored file held
// before the change and none of them holds after it. A symbol no touched
// file held before says nothing: it may live in a file the change left
// alone.
func symbolsGone(in Input, e knowledge.Entry, touched []gitx.FileChange) []string {
	symbols := sanitize.Identifiers(e)
	if len(symbols) == 0 || in.Before == nil || in.After == nil {
		return nil
	}
	had := map[string][]string{} // symbol -> the files that held it
	now := map[string]bool{}
	for _, c := range touched {
		if c.From != "" {
			if data, ok := in.Before(c.From); ok {
				for s := range sanitize.SymbolsIn(data, symbols) {
					had[s] = append(had[s], c.From)
				}
			}
		}
		if c.To != "" {
			if data, ok := in.After(c.To); ok {
				for s := range sanitize.SymbolsIn(data, symbols) {
					now[s] = true
				}
			}
		}
	}
	var out []string
	for _, s := range symbols { // the entry's order
		if len(had[s]) > 0 && !now[s] {
			out = append(out, "symbol "+s+" is gone from "+strings.Join(had[s], ", "))
		}
	}
	return out
}

// changeName is a changed file as a reader wants it: "old -> new" for a
// rename or a copy.
func changeName(c gitx.FileChange) string {
	switch {
	case c.From == "":
		return c.To
	case c.To == "" || c.To == c.From:
		return c.From
	}
	return c.From + " -> " + c.To
}

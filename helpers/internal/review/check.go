package review

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/prcheck"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// Check checks the working tree of project p against where HEAD left
// base ("" for the default branch): what cairn check prints.
func Check(p *project.Project, base string) (CheckReport, error) {
	src, close, err := Open(p)
	if errors.Is(err, ErrNotGit) {
		return CheckReport{}, fmt.Errorf("cairn check compares git revisions, and %s is %w", p.Root, err)
	}
	if err != nil {
		return CheckReport{}, err
	}
	defer close()
	return src.Check(base)
}

// CheckReport is what cairn check prints.
type CheckReport struct {
	Base         string            `json:"base"`
	BaseCommit   string            `json:"base_commit"`
	Head         string            `json:"head"`
	ChangedFiles int               `json:"changed_files"`
	Stale        int               `json:"stale"`
	Entries      []CheckEntry      `json:"entries"`
	Added        []knowledge.Entry `json:"added"`
}

// CheckEntry is an entry anchored to a changed file.
type CheckEntry struct {
	Entry   knowledge.Entry `json:"entry"`
	Changed []string        `json:"changed"` // the changed files it anchors, "old -> new" for a rename
	Stale   bool            `json:"stale"`
	Reasons []string        `json:"reasons,omitempty"`
}

// Check checks the working tree against where HEAD left base ("" for
// the default branch).
func (s Sources) Check(base string) (CheckReport, error) {
	label, baseID, err := s.checkBase(base)
	if err != nil {
		return CheckReport{}, err
	}
	changes, err := s.Git.ChangedSince(baseID)
	if err != nil {
		return CheckReport{}, err
	}
	then, err := s.read(diffSide{id: baseID})
	if err != nil {
		return CheckReport{}, err
	}
	now, err := s.read(diffSide{work: true})
	if err != nil {
		return CheckReport{}, err
	}
	in := prcheck.Input{
		Prefix:  s.Prefix,
		Changes: changes,
		Entries: activeEntries(now),
		Before: func(path string) ([]byte, bool) {
			data, ok, err := s.Git.FileAt(baseID, path, prcheck.MaxFileBytes)
			return data, ok && err == nil
		},
		After:  func(path string) ([]byte, bool) { return readSmallFile(s.Tree, path) },
		Exists: func(path string) bool { _, err := s.Tree.Lstat(filepath.FromSlash(path)); return err == nil },
	}
	r := CheckReport{Base: label, BaseCommit: baseID, Head: "working tree", ChangedFiles: len(changes),
		Entries: []CheckEntry{}, Added: []knowledge.Entry{}}
	for _, f := range prcheck.Check(in) {
		r.Entries = append(r.Entries, CheckEntry{Entry: f.Entry, Changed: f.Files, Stale: f.Stale(), Reasons: f.Reasons})
		if f.Stale() {
			r.Stale++
		}
	}
	for _, ch := range knowledge.Compare(then, now) {
		if ch.Kind == knowledge.ChangeAdded && ch.Entry.Active() {
			r.Added = append(r.Added, ch.Entry)
		}
	}
	return r, nil
}

// checkBase resolves the base of cairn check: where HEAD left rev, or
// the default branch when rev is "".
func (s Sources) checkBase(rev string) (label, id string, err error) {
	if rev == "" {
		if rev = s.Git.DefaultBranch(); rev == "" {
			return "", "", ErrNoDefaultBranch
		}
	}
	head, err := s.Git.Resolve("HEAD")
	if err != nil {
		return "", "", ErrNoHead
	}
	to, err := s.Git.Resolve(rev)
	if err != nil {
		return "", "", revisionError{err}
	}
	id, err = s.Git.MergeBase(to, head)
	if err != nil {
		return "", "", err
	}
	return "merge base of " + rev + " and HEAD", id, nil
}

// activeEntries are the latest lines of the keys that are neither
// retracted nor superseded.
func activeEntries(recs []knowledge.Record) []knowledge.Entry {
	var out []knowledge.Entry
	for _, r := range knowledge.Latest(recs) {
		if r.Entry.Active() {
			out = append(out, r.Entry)
		}
	}
	return out
}

// readSmallFile reads a regular file of the work tree, unless it is over
// prcheck.MaxFileBytes; a link is not followed.
func readSmallFile(tree Tree, path string) ([]byte, bool) {
	name := filepath.FromSlash(path)
	fi, err := tree.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > prcheck.MaxFileBytes {
		return nil, false
	}
	data, err := tree.ReadFile(name)
	return data, err == nil && len(data) <= prcheck.MaxFileBytes
}

// Counted is n with its noun: "1 entry", "2 entries".
func Counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// summary is the report's counts in words.
func (r CheckReport) summary() string {
	return fmt.Sprintf("%s, %s, %d may be stale, %d added",
		Counted(r.ChangedFiles, "changed file", "changed files"),
		Counted(len(r.Entries), "anchored entry", "anchored entries"), r.Stale, len(r.Added))
}

// WriteCheck writes r for people.
func WriteCheck(w io.Writer, r CheckReport) {
	fmt.Fprintf(w, "cairn check from %s (%s) to the %s: %s\n", r.Base, shortID(r.BaseCommit), r.Head, r.summary())
	group := func(title string, stale bool) {
		first := true
		for _, e := range r.Entries {
			if e.Stale != stale {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s:\n", title)
				first = false
			}
			fmt.Fprintf(w, "  [%s] %s\n", oneLine(e.Entry.Type, 20), oneLine(e.Entry.Content, 300))
			fmt.Fprintf(w, "    %s | changed: %s\n", oneLine(e.Entry.Key, 100), oneLine(strings.Join(e.Changed, ", "), 300))
			for _, why := range e.Reasons {
				fmt.Fprintf(w, "    ! %s\n", oneLine(why, 300))
			}
		}
	}
	group("May be stale", true)
	group("Anchored to the changed files", false)
	if len(r.Added) > 0 {
		fmt.Fprintf(w, "\nAdded by this change:\n")
		for _, e := range r.Added {
			fmt.Fprintf(w, "  [%s] %s\n", oneLine(e.Type, 20), oneLine(e.Content, 300))
			meta := oneLine(e.Key, 100)
			if e.Author != "" {
				meta += " | by " + oneLine(e.Author, 60)
			}
			fmt.Fprintf(w, "    %s\n", meta)
		}
	}
}

// WriteCheckMarkdown writes r as a pull-request comment. Every text from
// the log or a file name is redacted and an inline code span (see
// mdField): nothing in an entry can render, and no committed secret is
// printed. It stays under maxComment characters; all is the command
// that lists everything.
func WriteCheckMarkdown(w io.Writer, r CheckReport, all string) {
	var out comment
	defer out.close(w, "notes", all)
	md := func(s string) string { return mdField(s, 500) }
	out.head("### cairn: team notes on the code this change touches\n\nFrom %s to the %s: %s.\n", md(r.Base), r.Head, r.summary())
	if len(r.Entries) == 0 && len(r.Added) == 0 {
		return
	}
	group := func(title string, stale bool) {
		first := true
		for _, e := range r.Entries {
			if e.Stale != stale {
				continue
			}
			if first {
				out.head("\n#### %s\n\n", title)
				first = false
			}
			line := "- " + md(e.Entry.Type) + " " + md(e.Entry.Content)
			for _, why := range e.Reasons {
				line += " — " + mdField(why, 300)
			}
			var files []string
			for _, f := range e.Changed[:min(len(e.Changed), 5)] {
				files = append(files, mdField(f, 200))
			}
			if len(e.Changed) > 5 {
				files = append(files, fmt.Sprintf("and %d more", len(e.Changed)-5))
			}
			line += " — on " + strings.Join(files, ", ") + " <sub>" + md(e.Entry.Key) + "</sub>"
			out.item(line)
		}
	}
	group("May be stale: check these notes still hold", true)
	group("Notes on the changed files", false)
	if len(r.Added) > 0 {
		out.head("\n#### Knowledge this change adds\n\nThese entries steer every teammate's agent: review them like CI config.\n\n")
		for _, e := range r.Added {
			line := "- " + md(e.Type) + " " + md(e.Content)
			if e.Author != "" {
				line += " — by " + mdField(e.Author, 80)
			}
			out.item(line + " <sub>" + md(e.Key) + "</sub>")
		}
	}
}

// shortID is a commit id's first seven digits.
func shortID(id string) string { return id[:min(len(id), 7)] }

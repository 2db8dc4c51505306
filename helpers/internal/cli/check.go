package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/prcheck"
	ucli "github.com/urfave/cli/v2"
)

func checkCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:  "check",
		Usage: "the team's notes on the files a change touches, and which may be stale",
		Description: "Lists the entries anchored to the files changed between a base and the working\n" +
			"tree (HEAD and what is not committed yet): an entry anchors the files of its\n" +
			"files field, and a directory anchors everything under it. It flags those that may\n" +
			"be stale: an anchored file deleted or renamed, an anchored directory gone, a\n" +
			"symbol the entry names gone from the anchored files that held it. It also lists\n" +
			"the knowledge entries the change adds.\n\n" +
			"The base is where HEAD left --base REV (default: the repository's default branch,\n" +
			"origin/HEAD, else main or master). --markdown writes a pull-request comment.\n" +
			"It exits 0 unless --fail-on stale finds an entry that may be stale (exit 3).",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "base", Usage: "compare with where HEAD left `REV`"},
			&ucli.BoolFlag{Name: "markdown", Usage: "print Markdown for a pull-request comment"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
			&ucli.StringFlag{Name: "fail-on", Usage: "exit 3 when an entry may be `stale`"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("check takes no arguments (the base is --base REV)")
			}
			if c.Bool("markdown") && c.Bool("json") {
				return usagef("--markdown and --json do not go together")
			}
			if f := c.String("fail-on"); f != "" && f != "stale" {
				return usagef("invalid value %q for --fail-on: want stale", f)
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if !p.IsGit {
				return hinted(errors.New("cairn check compares git revisions, and "+p.Root+" is not a git repository"), "run it in the project's repository")
			}
			r, err := runCheck(p.Root, p.Store, c.String("base"))
			if err != nil {
				return err
			}
			switch {
			case c.Bool("json"):
				err = writeJSON(env.Stdout, checkJSON(r))
			case c.Bool("markdown"):
				printCheckMarkdown(env.Stdout, r, "cairn check --base "+fsx.ShellQuote(c.String("base")))
			default:
				printCheck(env.Stdout, r)
			}
			if err == nil && c.String("fail-on") == "stale" && r.Stale > 0 {
				err = &userError{msg: counted(r.Stale, "anchored entry", "anchored entries") + " may be stale", code: exitStale}
			}
			return err
		},
	}
}

// checkReport is what cairn check prints.
type checkReport struct {
	Base         string            `json:"base"`
	BaseCommit   string            `json:"base_commit"`
	Head         string            `json:"head"`
	ChangedFiles int               `json:"changed_files"`
	Stale        int               `json:"stale"`
	Entries      []checkEntry      `json:"entries"`
	Added        []knowledge.Entry `json:"added"`
}

// checkEntry is an entry anchored to a changed file.
type checkEntry struct {
	Entry   knowledge.Entry `json:"entry"`
	Changed []string        `json:"changed"` // the changed files it anchors, "old -> new" for a rename
	Stale   bool            `json:"stale"`
	Reasons []string        `json:"reasons,omitempty"`
}

// runCheck checks the working tree of the repository holding root
// against where HEAD left base ("" for the default branch).
func runCheck(root string, store *knowledge.Store, base string) (checkReport, error) {
	repo, err := gitx.Open(root)
	if err != nil {
		return checkReport{}, err
	}
	prefix, err := filepath.Rel(repo.Root(), root)
	if err != nil {
		return checkReport{}, err
	}
	dir, err := filepath.Rel(repo.Root(), store.Dir)
	if err != nil {
		return checkReport{}, err
	}
	label, baseID, err := checkBase(repo, base)
	if err != nil {
		return checkReport{}, err
	}
	changes, err := repo.ChangedSince(baseID)
	if err != nil {
		return checkReport{}, err
	}
	then, err := diffSide{repo: repo, id: baseID, dir: filepath.ToSlash(dir)}.read(store)
	if err != nil {
		return checkReport{}, err
	}
	now, err := diffSide{}.read(store)
	if err != nil {
		return checkReport{}, err
	}
	tree, err := os.OpenRoot(repo.Root())
	if err != nil {
		return checkReport{}, err
	}
	defer tree.Close()
	in := prcheck.Input{
		Prefix:  strings.TrimPrefix(filepath.ToSlash(prefix), "."),
		Changes: changes,
		Entries: activeEntries(now),
		Before: func(path string) ([]byte, bool) {
			data, ok, err := repo.FileAt(baseID, path, prcheck.MaxFileBytes)
			return data, ok && err == nil
		},
		After:  func(path string) ([]byte, bool) { return readSmallFile(tree, path) },
		Exists: func(path string) bool { _, err := tree.Lstat(filepath.FromSlash(path)); return err == nil },
	}
	r := checkReport{Base: label, BaseCommit: baseID, Head: "working tree", ChangedFiles: len(changes),
		Entries: []checkEntry{}, Added: []knowledge.Entry{}}
	for _, f := range prcheck.Check(in) {
		r.Entries = append(r.Entries, checkEntry{Entry: f.Entry, Changed: f.Files, Stale: f.Stale(), Reasons: f.Reasons})
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
func checkBase(repo *gitx.Repo, rev string) (label, id string, err error) {
	if rev == "" {
		if rev = repo.DefaultBranch(); rev == "" {
			return "", "", hinted(errors.New("no default branch to compare with (no origin/HEAD, main or master)"), "pass --base REV")
		}
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		return "", "", hinted(errors.New("HEAD has no commit yet"), "commit first")
	}
	to, err := repo.Resolve(rev)
	if err != nil {
		return "", "", hinted(err, "name a branch, a tag or a commit git knows here (git fetch first for origin/...)")
	}
	id, err = repo.MergeBase(to, head)
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
func readSmallFile(tree *os.Root, path string) ([]byte, bool) {
	name := filepath.FromSlash(path)
	fi, err := tree.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > prcheck.MaxFileBytes {
		return nil, false
	}
	data, err := tree.ReadFile(name)
	return data, err == nil && len(data) <= prcheck.MaxFileBytes
}

// counted is n with its noun: "1 entry", "2 entries".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// summary is the report's counts in words.
func (r checkReport) summary() string {
	return fmt.Sprintf("%s, %s, %d may be stale, %d added",
		counted(r.ChangedFiles, "changed file", "changed files"),
		counted(len(r.Entries), "anchored entry", "anchored entries"), r.Stale, len(r.Added))
}

func printCheck(w io.Writer, r checkReport) {
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

// printCheckMarkdown writes r as a pull-request comment. Every text from
// the log or a file name is redacted and an inline code span (see
// mdField): nothing in an entry can render, and no committed secret is
// printed. It stays under maxComment characters; all is the command
// that lists everything.
func printCheckMarkdown(w io.Writer, r checkReport, all string) {
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

package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
	ucli "github.com/urfave/cli/v2"
)

func diffCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "diff",
		Usage:     "the knowledge change between two revisions, as people read it",
		ArgsUsage: "[REV | REV..REV | REV...REV]",
		Description: "Compares the log and its archive (.cairn/knowledge.jsonl and\n" +
			".cairn/knowledge.archive.jsonl) between two states and lists what changed for the\n" +
			"team: entries added (type, content, author), retracted (with the reason),\n" +
			"superseded (old -> new), status changes and edits; a rotation's moves into the\n" +
			"archive are shown as such, not as removals.\n\n" +
			"Without a revision: the working tree against HEAD. REV: the working tree against\n" +
			"REV. A..B: B against A. A...B: B against where it branched from A (a pull\n" +
			"request: cairn diff origin/main...HEAD). --markdown writes a pull-request\n" +
			"comment. It is a report: it exits 0 whatever changed.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "markdown", Usage: "print Markdown for a pull-request comment"},
			&ucli.BoolFlag{Name: "json", Usage: "print JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return usagef("diff takes at most one revision or range (REV, REV..REV or REV...REV)")
			}
			if c.Bool("markdown") && c.Bool("json") {
				return usagef("--markdown and --json do not go together")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			r, err := knowledgeDiff(p, c.Args().First())
			if err != nil {
				return err
			}
			switch {
			case c.Bool("json"):
				return writeJSON(env.Stdout, diffJSON(r))
			case c.Bool("markdown"):
				all := "cairn diff"
				if rev := c.Args().First(); rev != "" {
					all += " " + fsx.ShellQuote(rev)
				}
				printDiffMarkdown(env.Stdout, r, all)
			default:
				printDiff(env.Stdout, r)
			}
			return nil
		},
	}
}

// knowledgeDiff is the knowledge change of arg (see diffSides) in project
// p: what cairn diff and cairn ui's diff page show.
func knowledgeDiff(p *project.Project, arg string) (diffReport, error) {
	if !p.IsGit {
		return diffReport{}, hinted(errors.New("cairn diff compares git revisions, and "+p.Root+" is not a git repository"), "run it in the project's repository")
	}
	repo, err := gitx.Open(p.Root)
	if err != nil {
		return diffReport{}, err
	}
	rel, err := filepath.Rel(repo.Root(), p.Store.Dir)
	if err != nil {
		return diffReport{}, err
	}
	from, to, err := diffSides(repo, filepath.ToSlash(rel), arg)
	if err != nil {
		return diffReport{}, err
	}
	before, err := from.read(p.Store)
	if err != nil {
		return diffReport{}, err
	}
	after, err := to.read(p.Store)
	if err != nil {
		return diffReport{}, err
	}
	r := diffReport{From: from.label, To: to.label, Changes: knowledge.Compare(before, after)}
	r.Counts = map[string]int{}
	for _, ch := range r.Changes {
		r.Counts[ch.Kind]++
	}
	if r.Changes == nil {
		r.Changes = []knowledge.Change{}
	}
	return r, nil
}

// diffReport is what cairn diff prints.
type diffReport struct {
	From    string             `json:"from"`
	To      string             `json:"to"`
	Counts  map[string]int     `json:"counts"`
	Changes []knowledge.Change `json:"changes"`
}

// diffSide is one state of the log: a commit, or the working tree.
type diffSide struct {
	label string
	repo  *gitx.Repo
	id    string // the commit; "" is the working tree, or nothing (empty)
	dir   string // .cairn's path from the work tree's root
	empty bool   // a HEAD with no commit yet: no log
}

// diffSides reads the command's argument: none (HEAD and the working
// tree), REV (REV and the working tree), A..B or A...B.
func diffSides(repo *gitx.Repo, dir, arg string) (from, to diffSide, err error) {
	side := func(rev string) (diffSide, error) {
		if rev == "" {
			rev = "HEAD"
		}
		id, err := repo.Resolve(rev)
		if err != nil && rev == "HEAD" {
			return diffSide{label: "HEAD (no commits yet)", empty: true}, nil
		}
		if err != nil {
			return diffSide{}, hinted(err, "name a branch, a tag or a commit git knows here (git fetch first for origin/...)")
		}
		return diffSide{label: rev, repo: repo, id: id, dir: dir}, nil
	}
	work := diffSide{label: "working tree"}
	switch {
	case strings.Contains(arg, "..."):
		a, b, _ := strings.Cut(arg, "...")
		if from, err = side(a); err != nil {
			return
		}
		if to, err = side(b); err != nil {
			return
		}
		if from.id != "" && to.id != "" {
			base, err := repo.MergeBase(from.id, to.id)
			if err != nil {
				return from, to, err
			}
			from.label, from.id = "merge base of "+from.label+" and "+to.label, base
		}
		return from, to, nil
	case strings.Contains(arg, ".."):
		a, b, _ := strings.Cut(arg, "..")
		if from, err = side(a); err != nil {
			return
		}
		to, err = side(b)
		return from, to, err
	default:
		from, err = side(arg)
		return from, work, err
	}
}

// read returns the records of the side's log and archive.
func (d diffSide) read(s *knowledge.Store) ([]knowledge.Record, error) {
	if d.empty {
		return nil, nil
	}
	if d.repo == nil {
		recs, _, err := s.ReadAll(true)
		return recs, err
	}
	var recs []knowledge.Record
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		data, ok, err := d.repo.FileAt(d.id, strings.TrimPrefix(d.dir+"/"+name, "./"), knowledge.MaxLogBytes)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		knowledge.Parse(data, func(r knowledge.Record) {
			r.Archived = name == knowledge.ArchiveName
			recs = append(recs, r)
		})
	}
	return recs, nil
}

// diffSections are the kinds of change in the order they are printed,
// with their headings.
var diffSections = []struct{ kind, title string }{
	{knowledge.ChangeAdded, "Added"},
	{knowledge.ChangeRetracted, "Retracted"},
	{knowledge.ChangeSuperseded, "Superseded"},
	{knowledge.ChangeStatus, "Status changed"},
	{knowledge.ChangeEdited, "Edited"},
	{knowledge.ChangeArchived, "Archived by rotation (moved to knowledge.archive.jsonl, not removed)"},
	{knowledge.ChangeRestored, "Restored from the archive"},
	{knowledge.ChangeRemoved, "Removed (no line left in the log or the archive)"},
}

// summary is the counts of r in words: "2 added, 1 retracted".
func (r diffReport) summary() string {
	var parts []string
	for _, s := range diffSections {
		if n := r.Counts[s.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.kind))
		}
	}
	return strings.Join(parts, ", ")
}

// sections calls fn for each kind of change r holds, in the order of
// diffSections, with its title and its changes.
func (r diffReport) sections(fn func(title string, changes []knowledge.Change)) {
	for _, s := range diffSections {
		var changes []knowledge.Change
		for _, c := range r.Changes {
			if c.Kind == s.kind {
				changes = append(changes, c)
			}
		}
		if len(changes) > 0 {
			fn(s.title, changes)
		}
	}
}

// statusName is a status for people ("" is active).
func statusName(s string) string {
	if s == "" {
		return "active"
	}
	return s
}

// oneLine is untrusted text on one terminal line, cut to n characters.
// cutRunes is s cut to n runes, the last three "..." when it was longer.
func cutRunes(s string, n int) string {
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-3]) + "..."
	}
	return s
}

func oneLine(s string, n int) string {
	return cutRunes(untrusted.ForTerminal(s), n)
}

func printDiff(w io.Writer, r diffReport) {
	if len(r.Changes) == 0 {
		fmt.Fprintf(w, "no knowledge change from %s to %s\n", r.From, r.To)
		return
	}
	fmt.Fprintf(w, "knowledge change from %s to %s: %s\n", r.From, r.To, r.summary())
	r.sections(func(title string, changes []knowledge.Change) {
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, c := range changes {
			e := c.Entry
			fmt.Fprintf(w, "  [%s] %s\n", oneLine(e.Type, 20), oneLine(e.Content, 300))
			meta := []string{oneLine(e.Key, 100)}
			if e.Author != "" {
				meta = append(meta, "by "+oneLine(e.Author, 60))
			}
			switch c.Kind {
			case knowledge.ChangeRetracted:
				meta = append(meta, "reason: "+orNone(oneLine(c.Reason, 200)))
			case knowledge.ChangeSuperseded:
				if c.New != nil {
					fmt.Fprintf(w, "    -> [%s] %s\n", oneLine(c.New.Type, 20), oneLine(c.New.Content, 300))
					meta = append(meta, "replaced by "+oneLine(c.New.Key, 100))
				} else {
					meta = append(meta, "replaced by "+orNone(oneLine(e.SupersededBy, 100)))
				}
			case knowledge.ChangeStatus:
				meta = append(meta, statusName(oneLine(c.FromStatus, 30))+" -> "+statusName(oneLine(c.ToStatus, 30)))
				if c.Reason != "" {
					meta = append(meta, "reason: "+oneLine(c.Reason, 200))
				}
			}
			fmt.Fprintf(w, "    %s\n", strings.Join(meta, " | "))
		}
	})
}

// printDiffMarkdown writes r as a pull-request comment. Every text from
// the log is redacted and an inline code span (see mdField): no markdown,
// HTML, link or mention in an entry can render, and no committed secret
// is printed. It stays under maxComment characters; all is the command
// that lists every change.
func printDiffMarkdown(w io.Writer, r diffReport, all string) {
	var out comment
	defer out.close(w, "changes", all)
	md := func(s string) string { return mdField(s, 500) }
	out.head("### cairn: team knowledge changes\n\nFrom %s to %s", md(r.From), md(r.To))
	if len(r.Changes) == 0 {
		out.head(": no change.\n")
		return
	}
	out.head(": %s.\n\nThese entries steer every teammate's agent: review them like CI config.\n", r.summary())
	r.sections(func(title string, changes []knowledge.Change) {
		out.head("\n#### %s\n\n", title)
		for _, c := range changes {
			e := c.Entry
			line := "- " + md(e.Type) + " " + md(e.Content)
			switch c.Kind {
			case knowledge.ChangeRetracted:
				line += " — reason: " + mdField(c.Reason, 300)
			case knowledge.ChangeSuperseded:
				if c.New != nil {
					line += " → " + md(c.New.Type) + " " + md(c.New.Content)
				}
			case knowledge.ChangeStatus:
				line += " — " + md(statusName(c.FromStatus)) + " → " + md(statusName(c.ToStatus))
			}
			if e.Author != "" {
				line += " — by " + mdField(e.Author, 80)
			}
			line += " <sub>" + md(e.Key) + "</sub>"
			out.item(line)
		}
	})
}

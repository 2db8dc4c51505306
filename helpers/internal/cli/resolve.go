package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	ucli "github.com/urfave/cli/v2"
)

func resolveCommand(env Env) *ucli.Command {
	return &ucli.Command{
		Name:      "resolve",
		Usage:     "repair a log that a git merge left with conflict markers: keep both sides, then stage it",
		UsageText: "cairn resolve [--json]",
		Description: "A merge without cairn's union driver (GitHub's merge button, a merge where\n" +
			".cairn/.gitattributes is not in effect) can leave <<<<<<<, |||||||, ======= and\n" +
			">>>>>>> lines in .cairn/knowledge.jsonl when two branches added entries at the\n" +
			"same place. resolve rewrites the log (and knowledge.archive.jsonl, the same way)\n" +
			"under the writers' lock:\n" +
			"  - every line of both sides of every conflict is kept; a line of a diff3 base\n" +
			"    section is kept too when neither side has it (a line one side removed);\n" +
			"  - the marker lines, blank lines and exact duplicate lines are removed;\n" +
			"  - the lines are put back in hash-of-key order, so the next merge stays clean;\n" +
			"  - a line that is not a valid entry is kept as it is: nothing is lost.\n" +
			"A marker is a whole line of exactly seven <, |, = or > characters, alone or\n" +
			"followed by a space; text inside an entry is never one.\n" +
			"In a git repository, a file it repaired that git tracks (or that the merge left\n" +
			"unmerged) is staged with git add; finish the merge with git commit.\n" +
			"A file without conflict markers is left untouched. It refuses to run from a\n" +
			"hook (CAIRN_IN_HOOK=1): resolving a merge is a person's decision.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "json", Usage: "print what was done as JSON"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("resolve takes no arguments: it repairs .cairn/knowledge.jsonl and its archive")
			}
			if env.Getenv(inHookEnv) == "1" {
				return hinted(errors.New("resolve refuses to run from a hook"), "a person resolves a merge: run cairn resolve in a terminal")
			}
			p, err := findProject(c, env)
			if err != nil {
				return err
			}
			if err := p.requireStore(); err != nil {
				return err
			}
			res, err := p.store.Resolve()
			if err != nil {
				return explainRead(err)
			}
			files := []*resolvedFile{{ResolveStats: res.Log}, {ResolveStats: res.Archive}}
			stageErr := stageResolved(p, files)
			if c.Bool("json") {
				if err := writeResolveJSON(env.Stdout, res, files); err != nil {
					return err
				}
			} else {
				printResolved(env.Stdout, p, files)
			}
			return stageErr
		},
	}
}

// resolvedFile is what resolve did with one file, staging included.
type resolvedFile struct {
	knowledge.ResolveStats
	staged bool
	notes  string // why a resolved file was not staged
}

// path is the file as git and the user name it, from the project root.
func (f *resolvedFile) path() string { return knowledge.DirName + "/" + f.Name }

// stageResolved runs git add on the resolved files that git tracks or that
// a merge left unmerged, in a git repository. A failure of git is returned
// with the command to run by hand; the files stay resolved.
func stageResolved(p *project, files []*resolvedFile) error {
	if !p.isGit {
		return nil
	}
	var paths []string
	var todo []*resolvedFile
	for _, f := range files {
		if !f.Resolved {
			continue
		}
		in, err := gitx.InIndex(p.root, f.path())
		if err != nil {
			f.notes = "not staged: " + err.Error()
			return hinted(fmt.Errorf("%s is resolved but not staged: %w", f.path(), err), "stage it yourself: git add "+f.path())
		}
		if !in {
			f.notes = "not staged: git does not track it"
			continue
		}
		paths = append(paths, f.path())
		todo = append(todo, f)
	}
	if len(paths) == 0 {
		return nil
	}
	if err := gitx.Add(p.root, paths...); err != nil {
		for _, f := range todo {
			f.notes = "not staged: git add failed"
		}
		return hinted(fmt.Errorf("resolved, but staging failed: %w", err), "stage it yourself: git add "+strings.Join(paths, " "))
	}
	for _, f := range todo {
		f.staged = true
	}
	return nil
}

func printResolved(w io.Writer, p *project, files []*resolvedFile) {
	done := false
	for _, f := range files {
		if !f.Resolved {
			continue
		}
		done = true
		fmt.Fprintf(w, "resolved %s: kept %s from both sides, removed %s and %s",
			f.path(), plural(f.Kept, "line"), plural(f.Markers, "conflict marker"), plural(f.Duplicates, "duplicate line"))
		switch {
		case f.staged:
			fmt.Fprint(w, "; staged it (git add)")
		case f.notes != "":
			fmt.Fprint(w, "; "+f.notes)
		}
		fmt.Fprintln(w)
	}
	if done {
		return
	}
	where := knowledge.DirName + "/" + knowledge.LogName
	if data, err := p.store.ReadArchive(); err == nil && data != nil {
		where += " or " + knowledge.DirName + "/" + knowledge.ArchiveName
	}
	fmt.Fprintf(w, "nothing to resolve: no conflict markers in %s\n", where)
}

func writeResolveJSON(w io.Writer, res knowledge.ResolveResult, files []*resolvedFile) error {
	out := map[string]any{"resolved": res.Changed()}
	var kept, markers, dups int
	staged := []string{}
	var list []map[string]any
	for _, f := range files {
		kept += f.Kept
		markers += f.Markers
		dups += f.Duplicates
		if f.staged {
			staged = append(staged, f.path())
		}
		list = append(list, map[string]any{
			"file": f.path(), "resolved": f.Resolved, "conflicts": f.Hunks, "conflict_markers": f.Markers,
			"kept": f.Kept, "base_kept": f.BaseKept, "duplicates": f.Duplicates, "blank": f.Blank,
			"lines": f.Lines, "staged": f.staged,
		})
	}
	out["kept"], out["conflict_markers"], out["duplicates"], out["staged"], out["files"] = kept, markers, dups, staged, list
	return writeJSON(w, out)
}

// plural is "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// lineList names line numbers for a message: "12, 40", or the first few
// and how many in all.
func lineList(lines []int) string {
	const max = 8
	var parts []string
	for i, n := range lines {
		if i == max {
			parts = append(parts, fmt.Sprintf("... %d in all", len(lines)))
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	return strings.Join(parts, ", ")
}

// conflictHint says on w, for the log and the archive, where a merge left
// conflict markers and that cairn resolve repairs them. It reads the files
// only when the cache counted conflict markers.
func conflictHint(w io.Writer, s *knowledge.Store, problems map[string]int) {
	if problems[knowledge.ProblemConflictMarker] == 0 {
		return
	}
	for _, name := range []string{knowledge.LogName, knowledge.ArchiveName} {
		data, err := s.ReadFile(name, knowledge.MaxLogBytes)
		if err != nil {
			continue
		}
		if lines := knowledge.ConflictLines(data); lines != nil {
			fmt.Fprintf(w, "cairn: %s/%s has conflict markers from a merge (%s %s): run cairn resolve\n",
				knowledge.DirName, name, pluralWord(len(lines), "line"), lineList(lines))
		}
	}
}

// pluralWord is "line" or "lines".
func pluralWord(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

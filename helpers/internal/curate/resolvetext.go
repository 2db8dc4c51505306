package curate

import (
	"fmt"
	"io"
	"strconv"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// WriteResolved writes what Resolve did to files, for people.
func WriteResolved(w io.Writer, p *project.Project, files []*Resolved) {
	done := false
	for _, f := range files {
		if !f.Resolved {
			continue
		}
		done = true
		fmt.Fprintf(w, "resolved %s: kept %s from both sides, removed %s and %s",
			f.Path(), plural(f.Kept, "line"), plural(f.Markers, "conflict marker"), plural(f.Duplicates, "duplicate line"))
		switch {
		case f.Staged:
			fmt.Fprint(w, "; staged it (git add)")
		case f.Note != "":
			fmt.Fprint(w, "; "+f.Note)
		}
		fmt.Fprintln(w)
	}
	if done {
		return
	}
	where := knowledge.DirName + "/" + knowledge.LogName
	if data, err := p.Store.ReadArchive(); err == nil && data != nil {
		where += " or " + knowledge.DirName + "/" + knowledge.ArchiveName
	}
	fmt.Fprintf(w, "nothing to resolve: no conflict markers in %s\n", where)
}

// ResolvedJSON is what Resolve did to files, for --json.
func ResolvedJSON(res knowledge.ResolveResult, files []*Resolved) map[string]any {
	out := map[string]any{"resolved": res.Changed()}
	var kept, markers, dups int
	staged := []string{}
	var list []map[string]any
	for _, f := range files {
		kept += f.Kept
		markers += f.Markers
		dups += f.Duplicates
		if f.Staged {
			staged = append(staged, f.Path())
		}
		list = append(list, map[string]any{
			"file": f.Path(), "resolved": f.Resolved, "conflicts": f.Hunks, "conflict_markers": f.Markers,
			"kept": f.Kept, "base_kept": f.BaseKept, "duplicates": f.Duplicates, "blank": f.Blank,
			"lines": f.Lines, "staged": f.Staged,
		})
	}
	out["kept"], out["conflict_markers"], out["duplicates"], out["staged"], out["files"] = kept, markers, dups, staged, list
	return out
}

// plural is "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

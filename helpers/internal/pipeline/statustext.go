package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/when"
)

// WriteStatus writes st for people.
func WriteStatus(w io.Writer, st Status) {
	state := "off"
	if st.On {
		state = "on"
	}
	fmt.Fprintf(w, "pipeline: %s (%s)\n", state, st.Config)
	if st.Problem != "" {
		fmt.Fprintf(w, "  config problem: %s\n", st.Problem)
	}
	fmt.Fprintf(w, "knowledge directory: %s\n", st.Knowledge)
	found := "found at " + st.Found
	if st.Found == "" {
		found = "NOT FOUND on PATH: sessions are exported but not distilled"
	}
	fmt.Fprintf(w, "model command: %s (%s)\n", strings.Join(st.Command, " "), found)
	fmt.Fprintf(w, "worker log: %s\n", st.Log)
	fmt.Fprintf(w, "pending: %d\n", len(st.Pending))
	for _, p := range st.Pending {
		what := "queued"
		if p.Working {
			what = "being distilled"
		}
		fmt.Fprintf(w, "  %s\t%s\t%s (%s)\n", when.PersonNanos(p.Enqueued), p.Session, what, p.Reason)
	}
	fmt.Fprintf(w, "recent sessions: %d\n", len(st.Recent))
	for _, o := range st.Recent {
		fmt.Fprintf(w, "  %s\t%s\n", when.PersonNanos(o.Finished), o.Line())
	}
}

// Line is a session's outcome on one line: "session S: skipped: why".
func (o Outcome) Line() string {
	line := "session " + o.Session + ": " + o.Result
	if o.Why != "" {
		line += ": " + o.Why
	}
	return line
}

// WriteEntries lists personal entries on out, one a line (key, tab,
// content), or says on note that there are none yet.
func WriteEntries(out, note io.Writer, entries []knowledge.Entry) {
	if len(entries) == 0 {
		fmt.Fprintln(note, "cairn: no personal entries for this project yet (the session pipeline writes them: cairn pipeline on)")
	}
	for _, e := range entries {
		fmt.Fprintf(out, "%s\t%s\n", e.Key, e.Content)
	}
}

// WritePromoted says what a promotion did with each key, one a line.
func WritePromoted(w io.Writer, done []Promoted) {
	for _, d := range done {
		state := "added"
		if !d.Added {
			state = "already in the team log"
		}
		fmt.Fprintf(w, "%s\t%s\n", d.Key, state)
	}
}

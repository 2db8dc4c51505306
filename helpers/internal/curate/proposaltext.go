package curate

import (
	"fmt"
	"io"
	"strings"
)

// WriteProposal writes a dry run's proposal for people: its lines
// described, then where it was written (out) or its exact lines (data,
// the proposal file's content) and how to apply it; logPath is the log
// it would change.
func WriteProposal(w io.Writer, prop Proposal, data []byte, logPath, out string) {
	if len(prop.Lines) == 0 {
		fmt.Fprintln(w, "nothing to curate: no duplicates or stale entries beyond what the log already records")
		return
	}
	fmt.Fprintf(w, "%d line(s) would be added to %s:\n", len(prop.Lines), logPath)
	for _, e := range prop.Lines {
		fmt.Fprintln(w, "  "+Describe(e))
	}
	if out != "" {
		fmt.Fprintf(w, "proposal written to %s; review it (delete lines you do not want), then:\n  cairn curate --apply %s --yes\n", out, out)
		return
	}
	fmt.Fprintln(w, "exact lines:")
	lines := strings.SplitN(string(data), "\n", 2)
	fmt.Fprint(w, lines[1])
	fmt.Fprintln(w, "to apply: cairn curate --dry-run --out FILE, review FILE, then cairn curate --apply FILE --yes")
}

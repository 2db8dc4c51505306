package sanitize

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// WriteSummary writes what a run did, for people.
func WriteSummary(w io.Writer, s audit.Summary) {
	fmt.Fprintf(w, "working set: %d of %d entries -> %s\n", s.Active, s.Entries, filepath.Join(knowledge.DirName, knowledge.CacheDir, ActiveName))
	fmt.Fprintf(w, "  removed: %d noise, %d duplicates, %d stale, %d retracted, %d superseded, %d archived\n",
		s.Noise, s.Duplicates, s.Stale, s.Retracted, s.Superseded, s.Archived)
	fmt.Fprintf(w, "  flagged: %d needs review, %d possibly outdated\n", s.Review, s.Outdated)
	if s.Invalid+s.Repaired > 0 {
		fmt.Fprintf(w, "  log lines: %d skipped, %d repaired\n", s.Invalid, s.Repaired)
	}
	if !s.SymbolsComplete {
		fmt.Fprintln(w, "  symbol search stopped at its time bound; unchecked symbols count as found")
	}
	fmt.Fprintf(w, "audit: %s (why each entry left or was flagged)\n", filepath.Join(knowledge.DirName, knowledge.CacheDir, audit.Name))
}

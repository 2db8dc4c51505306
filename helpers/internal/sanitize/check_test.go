package sanitize

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
)

// The anchor check's rule, one case each.
func TestJudgeAnchors(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		files                   int
		missing, symbols, moved []string
		result, effect, reason  string
	}{
		{name: "nothing missing", files: 2, result: audit.AnchorOK, reason: "no named file"},
		{name: "every file gone", files: 2, missing: []string{"a.go", "b.go"},
			result: audit.AnchorStale, effect: audit.EffectRemoved, reason: "stale: every file it names is gone (a.go, b.go)"},
		{name: "one file of two gone", files: 2, missing: []string{"a.go"},
			result: audit.AnchorReview, effect: audit.EffectFlagged, reason: "needs review: not found in the repository: a.go"},
		{name: "a symbol gone, no file anchor", symbols: []string{"buildQuery"},
			result: audit.AnchorReview, effect: audit.EffectFlagged, reason: "needs review: not found in the repository: buildQuery (symbol)"},
		{name: "a file and a symbol gone", files: 2, missing: []string{"a.go"}, symbols: []string{"Do"},
			result: audit.AnchorReview, effect: audit.EffectFlagged, reason: "not found in the repository: a.go, Do (symbol)"},
		{name: "changed since its commit", files: 1, moved: []string{"a.go"},
			result: audit.AnchorOutdated, effect: audit.EffectFlagged, reason: "possibly outdated: a.go changed since 0123456"},
		{name: "missing outranks changed", files: 2, missing: []string{"b.go"}, moved: []string{"a.go"},
			result: audit.AnchorReview, effect: audit.EffectFlagged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			result, effect, reason := judgeAnchors(tc.files, tc.missing, tc.symbols, tc.moved, "0123456789abcdef")
			if result != tc.result || effect != tc.effect || !strings.Contains(reason, tc.reason) {
				t.Errorf("got %s, %q, %q; want %s, %q, containing %q", result, effect, reason, tc.result, tc.effect, tc.reason)
			}
		})
	}
}

package knowledge_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Issue 24: add kept 100,000 files, paths outside the project, a
// newline in the bead and unbounded tags.
func TestCleanInput(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	many := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("src/f%d.go", i))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		e     knowledge.Entry
		files []string // after, when accepted
	}{
		{name: "relative", e: knowledge.Entry{Files: []string{"./src/a.go", "src/b/../c.go", "src/a.go"}}, files: []string{"src/a.go", "src/c.go"}},
		{name: "absolute inside", e: knowledge.Entry{Files: []string{filepath.Join(root, "src", "a.go")}}, files: []string{"src/a.go"}},
		{name: "fifty files", e: knowledge.Entry{Files: many(50)}, files: many(50)},
		{name: "climbs out", e: knowledge.Entry{Files: []string{"../../../etc/passwd"}}},
		{name: "climbs out midway", e: knowledge.Entry{Files: []string{"src/../../x"}}},
		{name: "absolute outside", e: knowledge.Entry{Files: []string{"/etc/shadow"}}},
		{name: "newline in a path", e: knowledge.Entry{Files: []string{"a\nb"}}},
		{name: "empty path", e: knowledge.Entry{Files: []string{" "}}},
		{name: "too many files", e: knowledge.Entry{Files: many(51)}},
		{name: "too many tags", e: knowledge.Entry{Tags: many(21)}},
		{name: "bead of two lines", e: knowledge.Entry{Bead: "bd-1\nLEARNED: injected"}},
		{name: "bead too long", e: knowledge.Entry{Bead: strings.Repeat("b", 201)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.e
			err := knowledge.CleanInput(root, &e)
			if tc.files == nil {
				if !errors.Is(err, knowledge.ErrInput) {
					t.Fatalf("accepted (%v): files %q, bead %q", err, e.Files, e.Bead)
				}
				return
			}
			if err != nil || !slices.Equal(e.Files, tc.files) {
				t.Fatalf("CleanInput = %v, files %q; want %q", err, e.Files, tc.files)
			}
		})
	}
}

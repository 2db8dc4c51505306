package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
)

// RecentCommits follows HEAD's first parents: a merge lists what it
// brought against the first parent, a rename is a deletion and an
// addition, the root commit lists its files, a file's name keeps its
// spaces and '#', and maxFiles cuts each list. A repository without
// commits has none, and no error.
func TestRecentCommits(t *testing.T) {
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	if c, err := RecentCommits(dir, 5, 20); err != nil || len(c) != 0 {
		t.Fatalf("no commits yet: %v, %v", c, err)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "a\n")
	write("b.go", "b\n")
	clitest.Git(t, dir, "add", ".")
	clitest.Git(t, dir, "commit", "-q", "-m", "first\n\nthe body")
	clitest.Git(t, dir, "checkout", "-q", "-b", "side")
	write("s p#.txt", "s\n")
	clitest.Git(t, dir, "add", ".")
	clitest.Git(t, dir, "commit", "-q", "-m", "side work")
	clitest.Git(t, dir, "checkout", "-q", "main")
	write("c.go", "c\n")
	clitest.Git(t, dir, "add", ".")
	clitest.Git(t, dir, "commit", "-q", "-m", "second")
	clitest.Git(t, dir, "merge", "-q", "--no-ff", "side", "-m", "merge side")
	clitest.Git(t, dir, "mv", "a.go", "z.go")
	clitest.Git(t, dir, "commit", "-q", "-m", "rename a")

	got, err := RecentCommits(dir, 5, 20)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range got {
		if len(c.Hash) != 7 {
			t.Errorf("hash %q", c.Hash)
		}
		lines = append(lines, c.Subject+": "+strings.Join(c.Files, ","))
	}
	want := []string{"rename a: a.go,z.go", "merge side: s p#.txt", "second: c.go", "first: a.go,b.go"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("RecentCommits =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if got, err := RecentCommits(dir, 2, 1); err != nil || len(got) != 2 || len(got[0].Files) != 1 {
		t.Errorf("RecentCommits(2, 1) = %v, %v", got, err)
	}
	if got, err := RecentCommits(filepath.Join(dir, "nowhere"), 5, 20); err != nil || len(got) != 0 {
		t.Errorf("outside a repository: %v, %v", got, err)
	}
}

// FuzzParseLog holds the reader of git log's output to never panicking
// and to returning only commits whose hash is a short object id.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte("\x1e0123456789abcdef0123456789abcdef01234567\x1fsubject\x00\na.go\x00b c.go\x00"), 2)
	f.Add([]byte("\x1e\x1f\x00\x1e"), 0)
	f.Add([]byte("\x1eabc\x1e\x1f"), 5)
	f.Fuzz(func(t *testing.T, out []byte, maxFiles int) {
		for _, c := range parseLog(out, maxFiles) {
			if len(c.Hash) != 7 || !IsObjectID(c.Hash) {
				t.Errorf("hash %q", c.Hash)
			}
			if maxFiles >= 0 && len(c.Files) > maxFiles {
				t.Errorf("%d files, max %d", len(c.Files), maxFiles)
			}
		}
	})
}

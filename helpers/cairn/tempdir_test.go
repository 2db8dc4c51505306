package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// The tests remove what they create under the temporary directory: a
// package that isolates its HOME (testenv), one that builds and runs the
// cairn binary (shared through one cached build, outside the temporary
// directory) and one that runs git leave a private TMPDIR exactly as
// they found it, empty.
func TestTestsLeaveTheTempDirAsFound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go test on three packages")
	}
	tmp := t.TempDir()
	before := treeSize(t, tmp)
	cmd := exec.Command("go", "test", "-count=1",
		"./helpers/internal/testharness/testenv/", "./helpers/internal/gitx/",
		"./helpers/cairn/", "-run", "^(TestEveryEntryJSONIsOne|TestRunIsolates|TestHome|TestInIndexAndAdd|TestUncommitted)$")
	cmd.Dir = cairntest.RepoRoot(t)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "GOTMPDIR=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test: %v\n%s", err, out)
	}
	if after := treeSize(t, tmp); after != before {
		t.Errorf("the temporary directory held %d bytes before the tests and %d after; left behind:\n%s", before, after, leftovers(tmp))
	}
}

// treeSize is the bytes of the regular files under dir, plus one for each
// directory below it.
func treeSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if d.IsDir() {
			n++
			return nil
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// leftovers lists dir's entries with their sizes.
func leftovers(dir string) string {
	ents, _ := os.ReadDir(dir)
	var b strings.Builder
	for _, e := range ents {
		var n int64
		filepath.WalkDir(filepath.Join(dir, e.Name()), func(p string, d fs.DirEntry, err error) error {
			if info, ierr := os.Lstat(p); err == nil && ierr == nil && info.Mode().IsRegular() {
				n += info.Size()
			}
			return nil
		})
		fmt.Fprintf(&b, "\t%s (%d bytes)\n", e.Name(), n)
	}
	return b.String()
}
